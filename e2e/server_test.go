package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// liveServer is a logbook-server process started by a test.
type liveServer struct {
	cmd            *exec.Cmd
	url, data      string
	key, pub, vkey string
	stderr         *bytes.Buffer
	readToken      string // the read routes' token ("" when the test gave its own token flags)
}

// readTokens maps a live server's base URL to its read token: fetch and
// readGet send it (reads need a token by default).
var readTokens sync.Map

// withReadToken adds a read token to a server's flags, unless the test
// chose how reads are guarded itself (--token-file, --read-token-file,
// --open-reads). For a server run as another user (uid >= 0) the file
// is put beside its data directory, which that user reaches, and is
// given to it.
func withReadToken(t testing.TB, extra []string, data string, uid int) ([]string, string) {
	for _, a := range extra {
		if a == "--token-file" || a == "--read-token-file" || a == "--open-reads" {
			return extra, ""
		}
	}
	dir := t.TempDir()
	if uid >= 0 {
		dir = filepath.Dir(data)
	}
	tok := fmt.Sprintf("read-%x", time.Now().UnixNano())
	file := filepath.Join(dir, filepath.Base(data)+".read.token")
	os.WriteFile(file, []byte(tok+"\n"), 0o600)
	if uid >= 0 {
		os.Chown(file, uid, uid)
	}
	return append(append([]string{}, extra...), "--read-token-file", file), tok
}

// readGet GETs url with the read token of the server it belongs to.
func readGet(url string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	readTokens.Range(func(k, v any) bool {
		if strings.HasPrefix(url, k.(string)+"/") && v.(string) != "" {
			req.Header.Set("Authorization", "Bearer "+v.(string))
			return false
		}
		return true
	})
	return http.DefaultClient.Do(req)
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// newServerKey makes the server's key pair in dir.
func newServerKey(t testing.TB, dir string) string {
	key := filepath.Join(dir, "server.key")
	out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--new-key", key, "--name", "e2e.example").CombinedOutput()
	if err != nil {
		t.Fatalf("--new-key: %v %s", err, out)
	}
	return key
}

// startServer runs logbook-server on addr with data and key, as cred's
// user when cred is not nil, and waits until /healthz answers.
func startServer(t testing.TB, addr, data, key string, cred *credential, extra ...string) *liveServer {
	t.Helper()
	s := &liveServer{url: "http://" + addr, data: data, key: key, pub: key + ".pub", vkey: key + ".vkey", stderr: &bytes.Buffer{}}
	exe := filepath.Join(bin, "logbook-server")
	if e := os.Getenv("LOGBOOK_E2E_SERVER"); e != "" {
		exe = e // another build, for before-and-after benchmarks
	}
	extra, s.readToken = withReadToken(t, extra, data, -1)
	readTokens.Store(s.url, s.readToken)
	s.cmd = exec.Command(exe, append([]string{"--listen", addr, "--data", data, "--key", key, "--name", "e2e.example"}, extra...)...)
	s.cmd.Stderr = s.stderr
	runAs(s.cmd, cred)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(s.url + "/healthz"); err == nil {
			resp.Body.Close()
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("logbook-server did not start: %s", s.stderr)
	return nil
}

func toolEvent(session string, i int) []byte {
	name := "PreToolUse"
	if i%2 == 1 {
		name = "PostToolUse"
	}
	return []byte(fmt.Sprintf(`{"session_id":%q,"hook_event_name":%q,"cwd":"/w","tool_name":"Bash","tool_use_id":"toolu_%06d","tool_input":{"command":"echo %d"},"tool_response":{"stdout":"%d"}}`,
		session, name, i, i, i))
}

func postEvent(c *http.Client, url string, body []byte) (int, error) {
	resp, err := c.Post(url+"/v1/hooks/claude-code", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func fetch(t testing.TB, url string) []byte {
	resp, err := readGet(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// sendSession posts session's tool events from to to-1 (toolEvent), then
// its SessionEnd, each answered 200.
func sendSession(t testing.TB, url, session string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if code, err := postEvent(http.DefaultClient, url, toolEvent(session, i)); err != nil || code != 200 {
			t.Fatalf("%s event %d: %d %v", session, i, code, err)
		}
	}
	if code, err := postEvent(http.DefaultClient, url, []byte(`{"session_id":"`+session+`","hook_event_name":"SessionEnd","reason":"exit"}`)); err != nil || code != 200 {
		t.Fatalf("SessionEnd %s: %d %v", session, code, err)
	}
}

// sealAndCheck ends a session on the server and verifies its record with
// its checkpoint through logbook-verify: level server, n steps at least.
func sealAndCheck(t testing.TB, s *liveServer, session string, minSteps int64) {
	t.Helper()
	sendSession(t, s.url, session, 0, 0)
	dir := t.TempDir()
	rec, cp := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.checkpoint")
	os.WriteFile(rec, fetch(t, s.url+"/v1/sessions/"+session+"/record"), 0o644)
	os.WriteFile(cp, fetch(t, s.url+"/v1/sessions/"+session+"/checkpoint"), 0o644)
	out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", s.pub, "--checkpoint", cp, "--checkpoint-key", s.vkey, rec).Output()
	var v cpVerdict
	if err := json.Unmarshal(out, &v); err != nil || !v.OK || v.level() != "server" || *v.StepCount < minSteps {
		t.Fatalf("%s: %s", session, out)
	}
}

// TestServerKill9: the server is killed with SIGKILL at random moments
// while 8 clients send events; after each restart every event it
// acknowledged is in its journal, and the sessions go on and seal at level
// server.
func TestServerKill9(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newServerKey(t, dir)
	data := filepath.Join(dir, "data")
	addr := freePort(t)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	acked := map[string][]int{} // session -> acknowledged event numbers
	var mu sync.Mutex
	next := map[string]int{}
	rounds := 6
	for round := 0; round < rounds; round++ {
		s := startServer(t, addr, data, key, nil)
		var stop atomic.Bool
		var wg sync.WaitGroup
		for c := 0; c < 8; c++ {
			session := fmt.Sprintf("k9-%d", c)
			wg.Go(func() {
				cl := &http.Client{Timeout: 5 * time.Second}
				for !stop.Load() {
					mu.Lock()
					i := next[session]
					next[session]++
					mu.Unlock()
					if code, err := postEvent(cl, s.url, toolEvent(session, i)); err == nil && code == 200 {
						mu.Lock()
						acked[session] = append(acked[session], i)
						mu.Unlock()
					}
				}
			})
		}
		time.Sleep(time.Duration(50+r.IntN(300)) * time.Millisecond)
		s.cmd.Process.Signal(syscall.SIGKILL)
		s.cmd.Wait()
		stop.Store(true)
		wg.Wait()
	}
	s := startServer(t, addr, data, key, nil)
	total := 0
	for session, events := range acked {
		text, err := os.ReadFile(filepath.Join(data, session+".steps.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range events {
			if !bytes.Contains(text, []byte(fmt.Sprintf(`"toolUseId":"toolu_%06d"`, i))) {
				t.Errorf("%s: acknowledged event %d is not in the journal", session, i)
			}
		}
		total += len(events)
		sealAndCheck(t, s, session, int64(len(events)))
	}
	report(t, fmt.Sprintf("server kill -9: %d kills, %d acknowledged events, none lost; every session resumed and sealed at level server", rounds, total))
}

// TestServerSIGTERM: SIGTERM while clients send: the server answers what
// is in progress and exits 0; everything acknowledged is there.
func TestServerSIGTERM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newServerKey(t, dir)
	data := filepath.Join(dir, "data")
	s := startServer(t, freePort(t), data, key, nil)
	var acked atomic.Int64
	var wg sync.WaitGroup
	var stop atomic.Bool
	for c := 0; c < 4; c++ {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				if code, err := postEvent(http.DefaultClient, s.url, toolEvent(fmt.Sprintf("term-%d", c), i)); err == nil && code == 200 {
					acked.Add(1)
				}
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	s.cmd.Process.Signal(syscall.SIGTERM)
	err := s.cmd.Wait()
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, s.stderr)
	}
	if !strings.Contains(s.stderr.String(), `"msg":"stopped"`) {
		t.Fatalf("no clean stop logged:\n%s", s.stderr)
	}
	steps := 0
	files, _ := filepath.Glob(filepath.Join(data, "*.steps.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		steps += bytes.Count(b, []byte("\n")) - 1
	}
	if int64(steps) < acked.Load() {
		t.Fatalf("%d steps on disk, %d acknowledged", steps, acked.Load())
	}
}

// TestServerOtherUser: the server runs as one user, the agent as nobody.
// The agent reaches the server over HTTP, and nothing of the server's can
// it read or write: not the data directory, not a journal, not a
// checkpoint log, not the key. Needs root (as on CI) to switch users.
func TestServerOtherUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the server and the agent as two other users")
	}
	const serverUID, nobody = 64021, 65534
	root, exe, key := twoUsers(t, "logbook-uid", serverUID)
	// The data directory belongs to the server's user, as systemd's
	// StateDirectory= makes it.
	data := filepath.Join(root, "data")
	os.Mkdir(data, 0o700)
	os.Chown(data, serverUID, serverUID)
	s := startServerAs(t, filepath.Join(exe, "logbook-server"), freePort(t), data, key, serverUID)
	// The agent, as nobody, records through the server (record-step
	// --server, as a command hook would).
	agent := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(name, args...)
		runAs(c, &credential{Uid: nobody, Gid: nobody})
		c.Dir = root
		return c
	}
	for i := 0; i < 4; i++ {
		c := agent(filepath.Join(exe, "record-step"), "--server", s.url, "--harness", "claude-code", "--dir", filepath.Join(root, "agent-logbook"))
		c.Stdin = bytes.NewReader(toolEvent("uid-sess", i))
		if out, err := c.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("record-step --server as nobody: %v %s", err, out)
		}
	}
	journalPath := filepath.Join(data, "uid-sess.steps.jsonl")
	st, err := os.Stat(journalPath)
	if err != nil {
		t.Fatalf("the server recorded nothing: %v\n%s", err, s.stderr)
	}
	if uid := fileUID(st); uid != serverUID || st.Mode().Perm() != 0o600 {
		t.Fatalf("journal owned by %d mode %v", uid, st.Mode())
	}
	// Everything the agent might try against the server's files fails.
	tries := [][]string{
		{"cat", journalPath},
		{"cat", filepath.Join(data, "uid-sess.checkpoints")},
		{"cat", key},
		{"ls", data},
		{"sh", "-c", "echo '{}' >> " + journalPath},
		{"sh", "-c", "echo x > " + filepath.Join(data, "planted.steps.jsonl")},
		{"truncate", "-s", "0", journalPath},
		{"rm", "-f", journalPath},
		{"mv", data, data + ".moved"},
		{"sh", "-c", "echo x >> " + key},
	}
	for _, try := range tries {
		if out, err := agent(try[0], try[1:]...).CombinedOutput(); err == nil {
			t.Errorf("as nobody, %q succeeded: %s", try, out)
		}
	}
	ents, _ := os.ReadDir(data)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if slices.Contains(names, "planted.steps.jsonl") {
		t.Fatal("the agent planted a file")
	}
	sealAndCheck(t, s, "uid-sess", 4)
	report(t, fmt.Sprintf("server as uid %d, agent as nobody: the agent recorded through HTTP; %d attempts on the server's files all refused", serverUID, len(tries)))
}

func startServerAs(t testing.TB, exe, addr, data, key string, uid uint32, extra ...string) *liveServer {
	t.Helper()
	s := &liveServer{url: "http://" + addr, data: data, key: key, pub: key + ".pub", vkey: key + ".vkey", stderr: &bytes.Buffer{}}
	extra, s.readToken = withReadToken(t, extra, data, int(uid))
	if !strings.HasPrefix(addr, "unix:") {
		readTokens.Store(s.url, s.readToken)
	}
	s.cmd = exec.Command(exe, append([]string{"--listen", addr, "--data", data, "--key", key, "--name", "e2e.example"}, extra...)...)
	s.cmd.Stderr = s.stderr
	runAs(s.cmd, &credential{Uid: uid, Gid: uid})
	s.cmd.Dir = filepath.Dir(data)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	c := http.DefaultClient
	if sock, ok := strings.CutPrefix(addr, "unix:"); ok {
		c, s.url = unixClient(sock), "http://localhost"
	}
	for i := 0; i < 200; i++ {
		if resp, err := c.Get(s.url + "/healthz"); err == nil {
			resp.Body.Close()
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("logbook-server did not start: %s", s.stderr)
	return nil
}

// TestServerRefusesOpenListener: a non-loopback address without a token
// or client certificates is a usage error.
func TestServerRefusesOpenListener(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newServerKey(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "logbook-server"), "--listen", "0.0.0.0:0", "--data", filepath.Join(dir, "d"), "--key", key).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "not a loopback address") {
		t.Fatalf("%v %s", err, out)
	}
	// With a token it starts (and is stopped at once).
	tok := filepath.Join(dir, "token")
	if out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--new-token", tok).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	cmd := exec.Command(filepath.Join(bin, "logbook-server"), "--listen", "0.0.0.0:0", "--data", filepath.Join(dir, "d"), "--key", key, "--token-file", tok)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Start()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), "listening") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("with a token: %v\n%s", err, stderr.String())
	}
}

// TestServerVerifyAPI: POST /v1/verify (and runback's path,
// /api/audit/verify) answers each file, record or runback cassette, with
// the very bytes logbook-verify --json prints for it.
func TestServerVerifyAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil)
	files, _ := filepath.Glob("../testdata/runback/*.json")
	recs, _ := filepath.Glob("../testdata/records/*.json")
	files = append(files, recs...)
	n := 0
	for _, f := range files {
		if filepath.Base(f) == "EXPECTED.json" {
			continue
		}
		body, _ := os.ReadFile(f)
		want, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", f).Output()
		for _, route := range []string{"/v1/verify", "/api/audit/verify"} {
			resp, err := http.Post(s.url+route, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !bytes.Equal(got, want) {
				t.Errorf("%s %s: %d\n got %s\nwant %s", route, f, resp.StatusCode, got, want)
			}
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d files", n)
	}
	report(t, fmt.Sprintf("server verify API: %d records and cassettes, the same bytes as logbook-verify --json at both routes", n))
}

// twoUsers lays out what a test of the server as serverUID and the agent
// as another user needs: a temporary root both can enter, the server and
// record-step in root/bin, and a server key in root/etc owned by
// serverUID (the public halves readable by everyone; the key is 0600).
func twoUsers(t *testing.T, prefix string, serverUID int) (root, exe, key string) {
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755)
	exe = filepath.Join(root, "bin")
	os.Mkdir(exe, 0o755)
	for _, name := range []string{"logbook-server", "record-step"} {
		b, _ := os.ReadFile(filepath.Join(bin, name))
		writeExe(filepath.Join(exe, name), b)
	}
	keyDir := filepath.Join(root, "etc")
	os.Mkdir(keyDir, 0o700)
	key = newServerKey(t, keyDir)
	for _, f := range []string{keyDir, key, key + ".pub", key + ".vkey"} {
		os.Chown(f, serverUID, serverUID)
	}
	os.Chmod(keyDir, 0o755)
	return root, exe, key
}
