package server_test

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/wal"
	"github.com/logbook-project/logbook/web"
)

type fixture struct {
	srv  *server.Server
	ts   *httptest.Server
	dir  string
	key  ed25519.PrivateKey
	pub  ed25519.PublicKey
	opts server.Config
}

func newServer(t testing.TB, mod func(*server.Config, *http.Server)) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))}
	f.pub = f.key.Public().(ed25519.PublicKey)
	// OpenReads: the tests read without a token unless they set one
	// (TestReadsNeedAToken: the default).
	cfg := server.Config{Dir: filepath.Join(f.dir, "data"), Origin: "logbook.test", Key: f.key, Web: web.Files, Version: "test", OpenReads: true}
	hs := &http.Server{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second}
	if mod != nil {
		mod(&cfg, hs)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.opts = srv, cfg
	f.ts = httptest.NewUnstartedServer(srv.Handler())
	f.ts.Config.ReadHeaderTimeout, f.ts.Config.ReadTimeout = hs.ReadHeaderTimeout, hs.ReadTimeout
	f.ts.Start()
	t.Cleanup(func() { f.ts.Close(); srv.Close() })
	return f
}

// event is a Claude Code payload: PreToolUse/PostToolUse pairs of Bash
// calls numbered i, or the named event.
func event(session, name string, i int) []byte {
	p := map[string]any{"session_id": session, "hook_event_name": name, "cwd": "/work/project"}
	switch name {
	case "PreToolUse", "PostToolUse":
		p["tool_name"] = "Bash"
		p["tool_use_id"] = fmt.Sprintf("toolu_%06d", i)
		p["tool_input"] = map[string]any{"command": fmt.Sprintf("echo %d", i)}
		if name == "PostToolUse" {
			p["tool_response"] = map[string]any{"stdout": fmt.Sprint(i), "exitCode": 0}
		}
	case "SessionEnd":
		p["reason"] = "other"
	}
	b, _ := json.Marshal(p)
	return b
}

func post(t testing.TB, c *http.Client, url string, body []byte) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// record sends n tool calls and, when end, a SessionEnd.
func (f *fixture) record(t testing.TB, c *http.Client, session string, n int, end bool) {
	t.Helper()
	for i := 0; i < n; i++ {
		name := "PreToolUse"
		if i%2 == 1 {
			name = "PostToolUse"
		}
		if code, body := post(t, c, f.ts.URL+"/v1/hooks/claude-code", event(session, name, i/2)); code != 200 || body != "" {
			t.Fatalf("event %d: %d %q", i, code, body)
		}
	}
	if end {
		if code, body := post(t, c, f.ts.URL+"/v1/hooks/claude-code", event(session, "SessionEnd", 0)); code != 200 || body != "" {
			t.Fatalf("SessionEnd: %d %q", code, body)
		}
	}
}

func (f *fixture) verify(rec []byte, cps ...[]byte) verdict.Outcome {
	return verdict.Run(verdict.Inputs{Record: rec, Checkpoints: cps, CheckpointKeys: []checkpoint.Key{{Pub: f.pub}}})
}

// TestAttackRefused is the attack: an agent that seals its own
// record from a cut or consistently re-chained copy of the journal is
// refused against the server's checkpoint; the server's record is
// accepted at level server.
func TestAttackRefused(t *testing.T) {
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "sess-a", 40, true)
	code, rec := get(t, f.ts.URL+"/v1/sessions/sess-a/record")
	if code != 200 {
		t.Fatalf("record: %d %s", code, rec)
	}
	code, cp := get(t, f.ts.URL+"/v1/sessions/sess-a/checkpoint")
	if code != 200 {
		t.Fatalf("checkpoint: %d %s", code, cp)
	}
	side, err := os.ReadFile(filepath.Join(f.opts.Dir, "sess-a.record.checkpoint"))
	if err != nil || !bytes.Equal(side, cp) {
		t.Fatalf("sidecar differs from the latest checkpoint: %v", err)
	}
	if o := f.verify(rec, cp); !o.Result.OK || o.Level != checkpoint.LevelServer {
		t.Fatalf("honest record: %+v", o.Result)
	} else if c, _ := checkpoint.Open(cp, []checkpoint.Key{{Pub: f.pub}}, nil); o.Result.KeyID != c.KeyID || c.KeyID != checkpoint.KeyID(f.pub) {
		t.Fatalf("the checkpoint's key id %s is not the record's keyId %s", c.KeyID, o.Result.KeyID)
	}
	if o := f.verify(rec); !o.Result.OK || o.Level != checkpoint.LevelLocal {
		t.Fatalf("without checkpoint: level %q", o.Level)
	}

	agent := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	// 1. The agent cuts a copy of the journal and seals it with its key.
	cut := t.TempDir()
	lines := readLines(t, journalfile.Path(f.opts.Dir, "sess-a"))
	writeLines(t, journalfile.Path(cut, "sess-a"), lines[:21])
	truncated := sealDir(t, cut, "sess-a", agent)
	if o := f.verify(truncated); !o.Result.OK {
		t.Fatalf("the truncated record verifies on its own (the hole the server closes): %+v", o.Result)
	}
	if o := f.verify(truncated, cp); o.Result.Code != checkpoint.Truncated {
		t.Fatalf("truncated: %+v", o.Result)
	}
	// 2. It edits a step and re-chains everything consistently.
	rechained, err := tamper.Apply(rec, tamper.EditSummary(5, "nothing to see"), tamper.Relink, tamper.FixCountAndTip, tamper.Resign(agent))
	if err != nil {
		t.Fatal(err)
	}
	if o := f.verify(rechained); !o.Result.OK {
		t.Fatalf("the re-chained record verifies on its own: %+v", o.Result)
	}
	if o := f.verify(rechained, cp); o.Result.Code != checkpoint.Mismatch {
		t.Fatalf("re-chained: %+v", o.Result)
	}
	// 3. Cut and re-chained to the full length: still a mismatch.
	if o := f.verify(truncated, firstCheckpoint(t, f, "sess-a")); o.Result.Code != "" {
		t.Fatalf("an early checkpoint the cut record still holds: %+v", o.Result)
	}
	// 4. Another session's checkpoint, another key.
	f.record(t, http.DefaultClient, "sess-b", 2, false)
	_, other := get(t, f.ts.URL+"/v1/sessions/sess-b/checkpoint")
	if o := f.verify(rec, other); o.Result.Code != checkpoint.Mismatch {
		t.Fatalf("other session: %+v", o.Result)
	}
	o := verdict.Run(verdict.Inputs{Record: rec, Checkpoints: [][]byte{cp}, CheckpointKeys: []checkpoint.Key{{Pub: agent.Public().(ed25519.PublicKey)}}})
	if o.Result.Code != checkpoint.Invalid {
		t.Fatalf("unpinned server key: %+v", o.Result)
	}
}

func firstCheckpoint(t *testing.T, f *fixture, id string) []byte {
	b, err := os.ReadFile(checkpoint.LogPath(f.opts.Dir, id))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("\n\n"))
	j := bytes.Index(b[i+2:], []byte("\n\n"))
	return b[:i+2+j+1]
}

func readLines(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

func writeLines(t *testing.T, path string, lines []string) {
	s := strings.Join(lines, "")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func sealDir(t *testing.T, dir, id string, key ed25519.PrivateKey) []byte {
	j, err := journalfile.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := seal.Seal(j, key, seal.Options{Now: "2026-12-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Record
}

// TestConcurrentSessions: 16 sessions × 500 events over HTTP at once.
// Every event is recorded once, in order per session, and every record
// verifies with its checkpoint at level server.
func TestConcurrentSessions(t *testing.T) {
	sessions, events := 16, 500
	if testing.Short() {
		events = 50
	}
	f := newServer(t, nil)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var wg sync.WaitGroup
	for s := 0; s < sessions; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.record(t, c, fmt.Sprintf("load-%02d", s), events, true)
		}()
	}
	wg.Wait()
	for s := 0; s < sessions; s++ {
		id := fmt.Sprintf("load-%02d", s)
		_, rec := get(t, f.ts.URL+"/v1/sessions/"+id+"/record")
		_, cp := get(t, f.ts.URL+"/v1/sessions/"+id+"/checkpoint")
		o := f.verify(rec, cp)
		if !o.Result.OK || o.Level != checkpoint.LevelServer || o.Result.StepCount != int64(events+1) {
			t.Fatalf("%s: %+v level %q", id, o.Result, o.Level)
		}
		// In order, each once: the toolUseIds and events alternate.
		lines := readLines(t, journalfile.Path(f.opts.Dir, id))[1:]
		for i, l := range lines[:events] {
			want := fmt.Sprintf(`"toolUseId":"toolu_%06d"`, i/2)
			if !strings.Contains(l, want) {
				t.Fatalf("%s step %d: %s lacks %s", id, i, l, want)
			}
		}
		l, _ := checkpoint.OpenLog(f.opts.Dir, id)
		if l.Count() != events+1 {
			t.Errorf("%s: %d checkpoints, want %d", id, l.Count(), events+1)
		}
		l.Close()
	}
}

// TestResume: a server that died after an append and before its
// checkpoint signs one for the tip when it starts again, and the session
// goes on.
func TestResume(t *testing.T) {
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "sess-r", 4, false)
	f.ts.Close()
	f.srv.Close()
	// An append the checkpoint never followed, and a torn line.
	lines := readLines(t, journalfile.Path(f.opts.Dir, "sess-r"))
	fh, _ := os.OpenFile(journalfile.Path(f.opts.Dir, "sess-r"), os.O_WRONLY|os.O_APPEND, 0)
	fh.WriteString(`{"at":"2026-`)
	fh.Close()
	srv, err := server.New(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	n, err := srv.Resume()
	if err != nil || n != 1 {
		t.Fatalf("Resume: %d %v", n, err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	_, cp := get(t, ts.URL+"/v1/sessions/sess-r/checkpoint")
	c, err := checkpoint.Open(cp, []checkpoint.Key{{Pub: f.pub}}, nil)
	if err != nil || c.Size != int64(len(lines)) { // 4 steps + the note of the cut
		t.Fatalf("checkpoint after resume: %+v %v (journal had %d lines)", c, err, len(lines))
	}
	f.ts = ts
	f.record(t, http.DefaultClient, "sess-r", 2, true)
	_, rec := get(t, ts.URL+"/v1/sessions/sess-r/record")
	_, cp = get(t, ts.URL+"/v1/sessions/sess-r/checkpoint")
	if o := f.verify(rec, cp); !o.Result.OK || o.Level != checkpoint.LevelServer || o.Result.StepCount != 8 {
		t.Fatalf("after resume: %+v", o.Result)
	}
	// Nothing to do the second time.
	if n, _ := srv.Resume(); n != 0 {
		t.Fatalf("second Resume signed %d", n)
	}
}

type jsonErr struct {
	Error, Detail string
}

func decodeErr(t *testing.T, body string) jsonErr {
	t.Helper()
	var e jsonErr
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
		t.Fatalf("not a named JSON error: %q", body)
	}
	return e
}

// TestHostile: each hostile request gets its named JSON error and status,
// and a session recorded in between is untouched.
func TestHostile(t *testing.T) {
	f := newServer(t, func(c *server.Config, hs *http.Server) {
		c.MaxHookBody = 1 << 20
		hs.ReadTimeout = 500 * time.Millisecond
	})
	u := f.ts.URL
	f.record(t, &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, "calm", 2, false)
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"over the limit", "POST", "/v1/hooks", `{"session_id":"x","pad":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "BODY_TOO_LARGE"},
		{"not JSON", "POST", "/v1/hooks", "hello", 400, "PAYLOAD_NOT_JSON"},
		{"empty", "POST", "/v1/hooks", "", 400, "PAYLOAD_EMPTY"},
		{"array", "POST", "/v1/hooks", "[1]", 400, "PAYLOAD_NOT_OBJECT"},
		{"no session", "POST", "/v1/hooks", `{"hook_event_name":"Stop"}`, 400, "SESSION_ID_MISSING"},
		{"escaping id", "POST", "/v1/hooks", `{"session_id":"../../etc/passwd","hook_event_name":"Stop"}`, 400, "SESSION_ID_INVALID"},
		{"escaping id 2", "POST", "/v1/hooks", `{"session_id":"..","hook_event_name":"Stop"}`, 400, "SESSION_ID_INVALID"},
		{"escaping GET", "GET", "/v1/sessions/..%2f..%2fetc/checkpoint", "", 400, "SESSION_ID_INVALID"},
		{"dot GET", "GET", "/v1/sessions/.calm/record", "", 400, "SESSION_ID_INVALID"},
		{"forged internal note", "POST", "/v1/hooks", `{"session_id":"calm","hook_event_name":"logbook.hooks","managed":true}`, 400, "EVENT_RESERVED"},
		{"unknown harness", "POST", "/v1/hooks/evil", "{}", 400, "HARNESS_UNKNOWN"},
		{"bad event hint", "POST", "/v1/hooks?event=a%0Ab", "{}", 400, "EVENT_INVALID"},
		{"unknown route", "GET", "/v2/anything", "", 404, "NOT_FOUND"},
		{"unknown file", "GET", "/js/../../etc/passwd", "", 404, "NOT_FOUND"},
		{"wrong method", "GET", "/v1/hooks", "", 405, "METHOD_NOT_ALLOWED"},
		{"wrong method 2", "DELETE", "/v1/sessions/calm/checkpoint", "", 405, "METHOD_NOT_ALLOWED"},
		{"wrong method 3", "PUT", "/", "", 405, "METHOD_NOT_ALLOWED"},
		{"no checkpoint", "GET", "/v1/sessions/nobody/checkpoint", "", 404, "NO_CHECKPOINT"},
		{"not sealed", "GET", "/v1/sessions/calm/record", "", 404, "NOT_SEALED"},
		{"deep", "POST", "/v1/hooks", strings.Repeat("[", 20000), 400, "PAYLOAD_TOO_DEEP"},
	}
	noKeep := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, u+c.path, strings.NewReader(c.body))
		var resp *http.Response
		var err error
		if len(c.body) > 64<<10 {
			// The server answers 413 before the body is all sent and
			// closes, so a client that writes the whole body first may
			// see a broken pipe instead of the answer: read the answer
			// while the body is still being written.
			resp, err = answerWhileSending(f.ts.Listener.Addr().String(), req, c.body)
		} else {
			resp, err = noKeep.Do(req)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		e := decodeErr(t, string(b))
		if resp.StatusCode != c.status || e.Error != c.code || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s (%s), want %d %s", c.name, resp.StatusCode, e.Error, e.Detail, c.status, c.code)
		}
	}
	raw := func(name, req string, halfClose bool, pause time.Duration) string {
		conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte(req))
		if pause > 0 {
			time.Sleep(pause)
		}
		if halfClose {
			conn.(*net.TCPConn).CloseWrite()
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(bufio.NewReader(conn))
		return string(b)
	}
	// A body cut off: the client promised 100 bytes and closed after 10.
	out := raw("cut", "POST /v1/hooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"session_", true, 0)
	if !strings.Contains(out, "400 Bad Request") || !strings.Contains(out, `"error":"BODY_INCOMPLETE"`) {
		t.Errorf("cut-off body: %q", out)
	}
	// A slow client: the body stops half-way and the read deadline passes.
	out = raw("slow", "POST /v1/hooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"session_", false, 0)
	if !strings.Contains(out, "408 Request Timeout") || !strings.Contains(out, `"error":"BODY_TIMEOUT"`) {
		t.Errorf("slow body: %q", out)
	}
	// Nothing from any of this reached the calm session, which goes on.
	// (A new connection: with a read timeout this short, the server has
	// closed the idle ones, and a POST is not retried.)
	f.record(t, noKeep, "calm", 2, true)
	_, rec := get(t, u+"/v1/sessions/calm/record")
	_, cp := get(t, u+"/v1/sessions/calm/checkpoint")
	if o := f.verify(rec, cp); !o.Result.OK || o.Result.StepCount != 5 {
		t.Fatalf("calm session: %+v", o.Result)
	}
	ents, _ := os.ReadDir(f.opts.Dir)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "calm.") && e.Name() != wal.Subdir {
			t.Errorf("unexpected file in the data directory: %s", e.Name())
		}
	}
}

// TestThousandConnections: 1,000 connections at once, each with one
// event of its own session. Each is answered 200 and recorded, or (on a
// machine too slow to free a slot in time) 503 BUSY and not recorded:
// nothing else, nothing lost, and the server goes on.
func TestThousandConnections(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	f := newServer(t, nil)
	var wg sync.WaitGroup
	errs := make(chan string, n)
	busy := make([]bool, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
			if err != nil {
				errs <- err.Error()
				return
			}
			defer conn.Close()
			<-start
			body := event(fmt.Sprintf("c-%04d", i), "PreToolUse", i)
			fmt.Fprintf(conn, "POST /v1/hooks/claude-code HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			b, _ := io.ReadAll(conn)
			switch {
			case bytes.HasPrefix(b, []byte("HTTP/1.1 200 OK")):
			case bytes.HasPrefix(b, []byte("HTTP/1.1 503 ")) && bytes.Contains(b, []byte(`"error":"BUSY"`)):
				busy[i] = true
			default:
				errs <- string(b)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("a connection failed: %q", e)
	}
	nBusy := 0
	for i := 0; i < n; i++ {
		_, err := os.Stat(journalfile.Path(f.opts.Dir, fmt.Sprintf("c-%04d", i)))
		if busy[i] {
			nBusy++
		}
		if (err == nil) == busy[i] {
			t.Errorf("connection %d: busy %v, recorded %v", i, busy[i], err == nil)
		}
	}
	t.Logf("%d connections: %d recorded, %d answered BUSY", n, n-nBusy, nBusy)
	f.record(t, http.DefaultClient, "after", 2, true)
}

func TestToken(t *testing.T) {
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.Token = "s3cret" })
	code, body := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks", event("tok", "Stop", 0))
	if code != 401 || decodeErr(t, body).Error != "UNAUTHORIZED" {
		t.Fatalf("no token: %d %s", code, body)
	}
	req, _ := http.NewRequest("POST", f.ts.URL+"/v1/hooks", bytes.NewReader(event("tok", "Stop", 0)))
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("with token: %v %v", resp, err)
	}
	resp.Body.Close()
	if code, _ := get(t, f.ts.URL+"/healthz"); code != 200 {
		t.Fatalf("healthz needs no token: %d", code)
	}
}

func TestVerifyEndpoint(t *testing.T) {
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.MaxVerifyBody = 1 << 20 })
	f.record(t, http.DefaultClient, "v", 4, true)
	_, rec := get(t, f.ts.URL+"/v1/sessions/v/record")
	code, body := post(t, http.DefaultClient, f.ts.URL+"/v1/verify", rec)
	var want bytes.Buffer
	verdict.WriteJSON(&want, f.verify(rec))
	if code != 200 || body != want.String() {
		t.Fatalf("verify: %d\n%s\nwant\n%s", code, body, want.String())
	}
	code, body = post(t, http.DefaultClient, f.ts.URL+"/v1/verify", bytes.Repeat([]byte(" "), 1<<20+1))
	if code != 413 || decodeErr(t, body).Error != "BODY_TOO_LARGE" {
		t.Fatalf("over the limit: %d %s", code, body)
	}
	if code, page := get(t, f.ts.URL+"/"); code != 200 || !bytes.Contains(page, []byte("logbook")) {
		t.Fatalf("page: %d", code)
	}
}

// TestVerifyMultipart: the record with pinned keys and a checkpoint as
// form parts gives what logbook-verify gives with the same files.
func TestVerifyMultipart(t *testing.T) {
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "mp", 4, true)
	_, rec := get(t, f.ts.URL+"/v1/sessions/mp/record")
	_, cp := get(t, f.ts.URL+"/v1/sessions/mp/checkpoint")
	_, key := get(t, f.ts.URL+"/v1/key")
	var k struct{ VerifierKey string }
	json.Unmarshal(key, &k)
	send := func(parts map[string][]string) (int, string) {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		for name, vals := range parts {
			for _, v := range vals {
				fw, _ := w.CreateFormFile(name, name)
				fw.Write([]byte(v))
			}
		}
		w.Close()
		resp, err := http.Post(f.ts.URL+"/v1/verify", w.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := send(map[string][]string{"record": {string(rec)}, "checkpoint": {string(cp)}, "checkpointKey": {k.VerifierKey}})
	var want bytes.Buffer
	verdict.WriteJSON(&want, f.verify(rec, cp))
	if code != 200 || body != want.String() || !strings.Contains(body, `"level":"server"`) {
		t.Fatalf("%d %s\nwant %s", code, body, want.String())
	}
	for _, bad := range []map[string][]string{
		{"checkpoint": {string(cp)}},
		{"record": {string(rec)}, "checkpoint": {string(cp)}},
		{"record": {string(rec)}, "pubkey": {"not a key"}},
		{"record": {string(rec)}, "other": {"x"}},
	} {
		if code, body := send(bad); code != 400 || decodeErr(t, body).Error != "VERIFY_INPUT_INVALID" {
			t.Errorf("%v: %d %s", bad, code, body)
		}
	}
}

// TestRedactDigest: a checkpoint names the SHA-256 of the redact.json the
// server loaded, whose rules apply to what it records.
func TestRedactDigest(t *testing.T) {
	cfg := []byte(`{"patterns": [{"name": "acme", "regexp": "acme_[0-9a-f]{8}"}]}`)
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		os.MkdirAll(c.Dir, 0o700)
		os.WriteFile(filepath.Join(c.Dir, "redact.json"), cfg, 0o600)
	})
	body := []byte(`{"session_id":"rd","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"deploy acme_0123abcd"}}`)
	if code, b := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks", body); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	_, cp := get(t, f.ts.URL+"/v1/sessions/rd/checkpoint")
	c, err := checkpoint.Open(cp, []checkpoint.Key{{Pub: f.pub}}, nil)
	sum := sha256.Sum256(cfg)
	if err != nil || c.Redact != hex.EncodeToString(sum[:]) {
		t.Fatalf("redact %s, want %x (%v)", c.Redact, sum, err)
	}
	journal, _ := os.ReadFile(filepath.Join(f.opts.Dir, "rd.steps.jsonl"))
	if bytes.Contains(journal, []byte("acme_0123abcd")) || !bytes.Contains(journal, []byte("[REDACTED]")) {
		t.Fatalf("the project's pattern was not applied:\n%s", journal)
	}
}

// TestOneSessionConcurrent: parallel hooks of one session (as Claude Code
// runs them) are each recorded once, in the order the server took them,
// with one checkpoint each and at never going back.
func TestOneSessionConcurrent(t *testing.T) {
	f := newServer(t, nil)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Go(func() {
			for i := 0; i < each; i++ {
				body := event("par", "PreToolUse", w*1000+i)
				if code, b := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/claude-code", body); code != 200 {
					t.Errorf("%d %s", code, b)
				}
			}
		})
	}
	wg.Wait()
	f.record(t, http.DefaultClient, "par", 0, true)
	lines := readLines(t, journalfile.Path(f.opts.Dir, "par"))[1:]
	seen := map[string]int{}
	var last time.Time
	for _, l := range lines {
		var st struct {
			At   string
			Data struct{ ToolUseID string }
		}
		json.Unmarshal([]byte(l), &st)
		seen[st.Data.ToolUseID]++
		at, err := time.Parse(time.RFC3339Nano, st.At)
		if err != nil || at.Before(last) {
			t.Fatalf("at goes back: %s after %s (%v)", st.At, last, err)
		}
		last = at
	}
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			if id := fmt.Sprintf("toolu_%06d", w*1000+i); seen[id] != 1 {
				t.Fatalf("%s recorded %d times", id, seen[id])
			}
		}
	}
	_, rec := get(t, f.ts.URL+"/v1/sessions/par/record")
	_, cp := get(t, f.ts.URL+"/v1/sessions/par/checkpoint")
	// The pre-events, SessionEnd, and the seal's note naming the 400
	// calls that never got a post-event.
	if o := f.verify(rec, cp); !o.Result.OK || o.Level != checkpoint.LevelServer || o.Result.StepCount != writers*each+2 {
		t.Fatalf("%+v", o.Result)
	}
	l, _ := checkpoint.OpenLog(f.opts.Dir, "par")
	defer l.Close()
	if l.Count() != writers*each+2 {
		t.Fatalf("%d checkpoints", l.Count())
	}
}

// answerWhileSending sends req with body over a connection of its own and
// reads the answer at the same time, so an answer given before the whole
// body was read is seen whatever happens to the rest of the body.
func answerWhileSending(addr string, req *http.Request, body string) (*http.Response, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	go func() {
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", req.Method, req.URL.RequestURI(), len(body))
		io.WriteString(conn, body) // may fail once the server has answered
	}()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		conn.Close()
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	conn.Close()
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp, err
}
