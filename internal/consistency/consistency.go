// Package consistency shows that one checkpoint of a transparency log
// extends another (the log never rewrote its past): a consistency proof
// built from the log's tiles, read from a copy of its directory or over
// HTTP, judged under a C2SP tlog-policy (logbook-verify --log-consistency,
// docs/log.md). The tiles come from the log being audited, so every read
// is bounded.
package consistency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/translog"
)

// Result is the verdict on two checkpoints: Code is empty when NEW
// extends OLD, else a logproof refusal code.
type Result struct {
	Code, Detail string
	Old, New     int64  // the tree sizes
	Origin       string // NEW's origin line
}

// OK reports that NEW extends OLD.
func (r Result) OK() bool { return r.Code == "" }

// Tiles returns the tile reader for loc: an http(s) URL of the log's
// tlog-tiles (token, when not empty, goes as the bearer token: a server
// run with a token serves its tiles only to holders) or a directory
// holding a copy of them.
func Tiles(loc, token string) (client.TileFetcherFunc, error) {
	if u, err := url.Parse(loc); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		f, err := client.NewHTTPFetcher(u, tileClient)
		if err != nil {
			return nil, err
		}
		if token != "" {
			f.SetAuthorizationHeader("Bearer " + token)
		}
		return f.ReadTile, nil
	}
	return fileTiles(loc), nil
}

// Check judges checkpoint newCP against oldCP under pol, with the proof
// hashes read from the tiles at loc (see Tiles). A checkpoint that cannot
// be read as a log checkpoint is a verdict (LOG_PROOF_INVALID); an error
// is a failure to read the tiles.
func Check(ctx context.Context, oldCP, newCP []byte, pol *logproof.Policy, loc, token string) (Result, error) {
	a, errA := logproof.ParseTree(oldCP)
	b, errB := logproof.ParseTree(newCP)
	r := Result{Old: a.Size, New: b.Size, Origin: b.Origin}
	if err := errors.Join(errA, errB); err != nil {
		r.Code, r.Detail = logproof.ProofInvalid, err.Error()
		return r, nil
	}
	fetch, err := Tiles(loc, token)
	if err != nil {
		return r, err
	}
	var hashes []tlog.Hash
	if a.Size <= b.Size { // a shrinking log is logproof's to name
		hashes, err = translog.ConsistencyProof(ctx, fetch, uint64(a.Size), uint64(b.Size))
		if err != nil {
			return r, fmt.Errorf("--log-tiles %s: %v", loc, err)
		}
	}
	r.Code, r.Detail = logproof.Consistent(oldCP, newCP, hashes, pol)
	return r, nil
}

// WriteJSON writes r as one JSON object: ok, code (null when ok),
// detail, old and new.
func (r Result) WriteJSON(w io.Writer) {
	var c *string
	if r.Code != "" {
		c = &r.Code
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		OK     bool    `json:"ok"`
		Code   *string `json:"code"`
		Detail string  `json:"detail"`
		Old    int64   `json:"old"`
		New    int64   `json:"new"`
	}{r.OK(), c, r.Detail, r.Old, r.New})
}

// WriteHuman writes r as one line: OK consistent … or REFUSED CODE: ….
func (r Result) WriteHuman(w io.Writer) {
	if r.OK() {
		fmt.Fprintf(w, "OK consistent origin=%s old=%d new=%d: %s\n", r.Origin, r.Old, r.New, r.Detail)
	} else {
		fmt.Fprintf(w, "REFUSED %s: %s\n", r.Code, r.Detail)
	}
}
