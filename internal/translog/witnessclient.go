package translog

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxWitnessAnswer bounds what the log reads of a witness's answer. A
// cosignature is one signature line (under 200 bytes); without a bound,
// Tessera reads a witness's whole answer into memory for as long as the
// witness timeout lets it.
const MaxWitnessAnswer = 64 << 10

// ErrWitnessAnswerTooLarge is what reading past MaxWitnessAnswer gives.
var ErrWitnessAnswerTooLarge = errors.New("witness answer over the limit")

// limitBodies returns a copy of c (nil: a default client) whose response
// bodies fail with ErrWitnessAnswerTooLarge past limit bytes.
func limitBodies(c *http.Client, limit int64) *http.Client {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	base := cc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = limitTransport{base: base, limit: limit}
	return &cc
}

type limitTransport struct {
	base  http.RoundTripper
	limit int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %w (%d bytes, the limit is %d)", r.URL.Redacted(), ErrWitnessAnswerTooLarge, resp.ContentLength, t.limit)
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.limit}
	return resp, nil
}

// limitedBody reads at most left bytes, then fails if more come.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, ErrWitnessAnswerTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
