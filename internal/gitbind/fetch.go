package gitbind

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// Fetched is what FromServer brought and wrote.
type Fetched struct {
	Record string   // DIR/ID.record.json
	Logged bool     // a proof of logging came with it (DIR/ID.record.tlog-proof)
	Noted  []string // the commits whose note now names the record
}

// FromServer is the binding of a session a logbook-server recorded and
// sealed: the server has no repository, so the notes are written here,
// where the repository is. It fetches the session's sealed record, the
// checkpoint it was sealed with and, when the server's log has proved it,
// its proof of logging (the read routes, with token as the bearer), writes
// them into dir as ID.record.json, ID.record.checkpoint and
// ID.record.tlog-proof (where logbook-verify --commits --records DIR reads
// them), and adds each commit the record names in repo a note at level
// server, carrying the proof when there is one.
func FromServer(url, token, session, dir, repo string) (Fetched, error) {
	var f Fetched
	if err := journalfile.ValidSessionID(session); err != nil {
		return f, err
	}
	get, err := getter(url, token)
	if err != nil {
		return f, err
	}
	base := "/v1/sessions/" + session
	rec, err := get(base+"/record", readlimit.Record)
	if err != nil {
		return f, err
	}
	cp, err := get(base+"/record-checkpoint", 64<<10)
	if err != nil {
		return f, err
	}
	proof, err := get(base+"/tlog-proof", logproof.MaxProof)
	if err != nil && !strings.Contains(err.Error(), " 404") {
		return f, err
	}
	f.Record = filepath.Join(dir, session+".record.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	for _, w := range []struct {
		suffix string
		b      []byte
	}{{".record.json", rec}, {".record.checkpoint", cp}, {".record.tlog-proof", proof}} {
		if w.b == nil {
			continue
		}
		if err := durable.WriteFileMode(filepath.Join(dir, session+w.suffix), w.b, 0o644); err != nil {
			return f, err
		}
	}
	f.Logged = proof != nil
	f.Noted, err = Write(repo, rec, "server", proof)
	return f, err
}

// getter returns a GET of the server's routes: http://HOST:PORT, or
// unix:/PATH for a server on a Unix socket.
func getter(url, token string) (func(route string, max int64) ([]byte, error), error) {
	client := &http.Client{Timeout: 30 * time.Second}
	base := strings.TrimRight(url, "/")
	switch {
	case strings.HasPrefix(url, "unix:"):
		sock := strings.TrimPrefix(url, "unix:")
		client.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}
		base = "http://unix"
	case strings.HasPrefix(url, "http://"), strings.HasPrefix(url, "https://"):
	default:
		return nil, fmt.Errorf("--from-server %q: want http://HOST:PORT, https://… or unix:/PATH", url)
	}
	return func(route string, max int64) ([]byte, error) {
		req, err := http.NewRequest("GET", base+route, nil)
		if err != nil {
			return nil, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("GET %s: the server answered %d: %s", route, resp.StatusCode, clip(strings.TrimSpace(string(b))))
		}
		if int64(len(b)) > max {
			return nil, fmt.Errorf("GET %s: over %d bytes", route, max)
		}
		return b, nil
	}, nil
}

// String is what logbook-seal --from-server says.
func (f Fetched) String() string {
	logged := ""
	if f.Logged {
		logged = ", with its proof of logging"
	}
	return fmt.Sprintf("fetched %s%s: %d commit(s) bound in %s", f.Record, logged, len(f.Noted), NoteRef)
}
