package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
)

// TestServerPortSquat: the agent (nobody) starts its own server where the
// logbook server should be, while that is down. On a loopback port,
// a hook with no pinned key takes the squatter's 200 and the event is
// gone from the real record (the door a bare TCP address leaves open;
// Claude Code's HTTP hooks check nothing of who answers). A hook with the
// server's key pinned (record-step --server-key) sends a nonce with each
// event and takes only a 200 the server's key signed over it: the
// squatter's answers are refused, said and counted, and once the real
// server is back on the port the record names those events, so the
// verifier does not say a silent OK. On a Unix socket in the server's own
// folder the squatter cannot even listen: it cannot create the socket,
// and a socket in a folder the agent owns is refused by the hook;
// record-step says "not recorded" on stderr and in errors.log instead of
// taking a stranger's 200. Once the real server is up on the socket, the
// same hook records at level server. Reads need the server's read token.
// Needs root (as on CI).
func TestServerPortSquat(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the server and the agent as two other users")
	}
	const serverUID, nobody = 64021, 65534
	root, exe, key := twoUsers(t, "logbook-squat", serverUID)
	mk := func(name string, uid int, mode os.FileMode) string {
		d := filepath.Join(root, name)
		os.Mkdir(d, mode)
		os.Chmod(d, mode)
		os.Chown(d, uid, uid)
		return d
	}
	data, run := mk("data", serverUID, 0o700), mk("run", serverUID, 0o755)
	agentHome := mk("agent", nobody, 0o755)
	squatKeyDir := mk("agent/keys", nobody, 0o700)
	squatKey := filepath.Join(squatKeyDir, "squat.key")
	if out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--new-key", squatKey, "--name", "squatter").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.Chown(squatKey, nobody, nobody)
	as := func(uid uint32, name string, args ...string) *exec.Cmd {
		c := exec.Command(name, args...)
		runAs(c, &credential{Uid: uid, Gid: uid})
		c.Dir = root
		return c
	}
	hook := func(server string, i int) (string, string) {
		c := as(nobody, filepath.Join(exe, "record-step"), "--server", server, "--harness", "claude-code", "--dir", filepath.Join(agentHome, "logbook"))
		c.Stdin = bytes.NewReader(toolEvent("squat-sess", i))
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("record-step must exit 0 inside a hook: %v", err)
		}
		log, _ := os.ReadFile(filepath.Join(agentHome, "logbook", "errors.log"))
		return stderr.String(), string(log)
	}
	squat := func(listen string) (*exec.Cmd, *bytes.Buffer) {
		var stderr bytes.Buffer
		c := as(nobody, filepath.Join(exe, "logbook-server"), "--listen", listen, "--data", filepath.Join(agentHome, "squat-data"), "--key", squatKey, "--name", "squatter")
		c.Stderr = &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c, &stderr
	}

	// 1. A loopback port. Without a pinned key the squatter's 200 is
	// taken: nothing over TCP says who answers.
	port := freePort(t)
	sq, _ := squat(port)
	waitHTTP(t, "http://"+port, nil)
	if stderr, _ := hook("http://"+port, 0); stderr != "" {
		t.Fatalf("over TCP the squatter's 200 was not taken: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(agentHome, "squat-data", "squat-sess.steps.jsonl")); err != nil {
		t.Fatalf("the squatter did not get the event: %v", err)
	}
	// With the server's key pinned (--server-key, as install --server
	// writes it from GET /v1/key), each event goes with a nonce and the
	// squatter's 200 carries no signature by that key: not recorded,
	// said, and counted. It signs with its own key: refused the same.
	pubPEM, _ := os.ReadFile(key + ".pub")
	pub, err := keys.ParsePublicKeyPEM(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	pin := hex.EncodeToString(pub)
	tcpDir := filepath.Join(agentHome, "tcp-logbook")
	pinned := func(payload []byte) string {
		c := as(nobody, filepath.Join(exe, "record-step"), "--server", "http://"+port, "--server-key", pin, "--harness", "claude-code", "--dir", tcpDir)
		c.Stdin = bytes.NewReader(payload)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("record-step must exit 0 inside a hook: %v", err)
		}
		return stderr.String()
	}
	const squatted = 3
	for i := 0; i < squatted; i++ {
		if stderr := pinned(toolEvent("squat-tcp", i)); !strings.Contains(stderr, "not recorded") || !strings.Contains(stderr, "not signed by the pinned server key") {
			t.Fatalf("a pinned hook took the squatter's answer: %q", stderr)
		}
	}
	if st, err := os.Stat(filepath.Join(tcpDir, "squat-tcp.server-seq")); err != nil || st.Size() != squatted {
		t.Fatalf("the refused answers were not numbered: %v %v", st, err)
	}
	b, _ := os.ReadFile(filepath.Join(agentHome, "squat-data", "squat-tcp.steps.jsonl"))
	squatterGot := bytes.Count(b, []byte("\n"))
	sq.Process.Kill()
	sq.Wait()
	// The real server comes back on the port: the same pinned hook is
	// answered with the server's signature, and the numbers the
	// squatter took are holes the server names at the seal.
	dataTCP := mk("data-tcp", serverUID, 0o700)
	tcpSrv := startServerAs(t, filepath.Join(exe, "logbook-server"), port, dataTCP, key, serverUID)
	for i := squatted; i < squatted+4; i++ {
		if stderr := pinned(toolEvent("squat-tcp", i)); stderr != "" {
			t.Fatalf("the real server's answer was refused: %s", stderr)
		}
	}
	if stderr := pinned([]byte(`{"session_id":"squat-tcp","hook_event_name":"SessionEnd","reason":"exit"}`)); stderr != "" {
		t.Fatalf("SessionEnd: %s", stderr)
	}
	tcpRec, tcpCP := t.TempDir()+"/r.json", t.TempDir()+"/r.checkpoint"
	os.WriteFile(tcpRec, fetch(t, tcpSrv.url+"/v1/sessions/squat-tcp/record"), 0o644)
	os.WriteFile(tcpCP, fetch(t, tcpSrv.url+"/v1/sessions/squat-tcp/record-checkpoint"), 0o644)
	tcpOut, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", key+".pub", "--checkpoint", tcpCP,
		"--checkpoint-key", key+".vkey", tcpRec).Output()
	var tv struct {
		OK    bool   `json:"ok"`
		Level string `json:"level"`
		Gaps  struct {
			Holes int `json:"sequenceHoles"`
		} `json:"gaps"`
	}
	if err := json.Unmarshal(tcpOut, &tv); err != nil || !tv.OK || tv.Level != "server" || tv.Gaps.Holes != squatted {
		t.Fatalf("over TCP with a pinned key, want OK level server naming the %d events the squatter answered: %s", squatted, tcpOut)
	}
	tcpHuman, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--pubkey", key+".pub", "--checkpoint", tcpCP,
		"--checkpoint-key", key+".vkey", tcpRec).Output()
	if !strings.Contains(string(tcpHuman), fmt.Sprintf("%d event(s) the hook numbered that never reached the server", squatted)) {
		t.Fatalf("logbook-verify does not name the squatted events:\n%s", tcpHuman)
	}
	// Reads need the read token: the agent's user, without it, reads
	// nothing.
	if resp, err := http.Get(tcpSrv.url + "/v1/sessions/squat-tcp/record"); err != nil || resp.StatusCode != 401 {
		t.Fatalf("a read without the token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// 2. The server's socket, while the server is down: the squatter
	// cannot create it, and the hook says the event was not sent.
	sock := filepath.Join(run, "hooks.sock")
	sq, sqErr := squat("unix:" + sock)
	if err := sq.Wait(); err == nil || !strings.Contains(sqErr.String(), "permission denied") {
		t.Fatalf("the agent listened on the server's socket: %v %s", err, sqErr)
	}
	stderr, errlog := hook("unix:"+sock, 1)
	if !strings.Contains(stderr, "not recorded") || !strings.Contains(errlog, "not recorded") {
		t.Fatalf("a hook with no server must say so: stderr %q, errors.log %q", stderr, errlog)
	}

	// 3. A socket in a folder the agent owns (a hook pointed there, or
	// a folder handed to the wrong user): refused, though it answers.
	own := filepath.Join(agentHome, "run")
	as(nobody, "mkdir", "-m", "0755", own).Run()
	squat("unix:" + filepath.Join(own, "hooks.sock"))
	waitHTTP(t, "http://localhost", unixClient(filepath.Join(own, "hooks.sock")))
	stderr, _ = hook("unix:"+filepath.Join(own, "hooks.sock"), 2)
	if !strings.Contains(stderr, "its folder is this user's own") {
		t.Fatalf("a socket in the agent's own folder was taken: %q", stderr)
	}

	// 4. The real server on its socket: the same hook records, and the
	// session seals at level server.
	srv := startServerAs(t, filepath.Join(exe, "logbook-server"), "unix:"+sock, data, key, serverUID)
	for i := 4; i < 8; i++ {
		if stderr, _ := hook("unix:"+sock, i); stderr != "" {
			t.Fatalf("record-step over the socket: %s", stderr)
		}
	}
	// The two events the hook could not send (2. and 3.), and the one
	// the squatter took unpinned (1.), are holes in the hook's numbers
	// (1 to 3), named at the seal: what the squatter took is no longer
	// invisible either.
	b, err = os.ReadFile(filepath.Join(data, "squat-sess.steps.jsonl"))
	if err != nil || bytes.Count(b, []byte("\n")) != 5 {
		t.Fatalf("the server's journal: %v\n%s", err, b)
	}
	// The session ends; one more event comes after its SessionEnd.
	end := func() {
		c := as(nobody, filepath.Join(exe, "record-step"), "--server", "unix:"+sock, "--harness", "claude-code", "--dir", filepath.Join(agentHome, "logbook"))
		c.Stdin = strings.NewReader(`{"session_id":"squat-sess","hook_event_name":"SessionEnd","reason":"exit"}`)
		if out, err := c.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("SessionEnd: %v %s", err, out)
		}
	}
	end()
	hook("unix:"+sock, 8)
	uc := unixClient(sock)
	req, _ := http.NewRequest("GET", "http://localhost/v1/sessions/squat-sess/record", nil)
	req.Header.Set("Authorization", "Bearer "+srv.readToken)
	resp, err := uc.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatal(resp, err)
	}
	rec, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cp, _ := base64.StdEncoding.DecodeString(resp.Header.Get("X-Logbook-Checkpoint"))
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "r.json"), rec, 0o644)
	os.WriteFile(filepath.Join(dir, "r.checkpoint"), cp, 0o644)
	out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", key+".pub", "--checkpoint", filepath.Join(dir, "r.checkpoint"),
		"--checkpoint-key", key+".vkey", filepath.Join(dir, "r.json")).Output()
	var v struct {
		OK    bool   `json:"ok"`
		Level string `json:"level"`
		Gaps  struct {
			Holes    int `json:"sequenceHoles"`
			AfterEnd int `json:"afterSessionEnd"`
		} `json:"gaps"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out, &v); err != nil || !v.OK || v.Level != "server" || v.Gaps.Holes != 3 || v.Gaps.AfterEnd != 1 {
		t.Fatalf("want OK level server with 3 events lost and 1 after SessionEnd named: %s", out)
	}
	human, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--pubkey", key+".pub", "--checkpoint", filepath.Join(dir, "r.checkpoint"),
		"--checkpoint-key", key+".vkey", filepath.Join(dir, "r.json")).Output()
	for _, want := range []string{"1 event(s) after a SessionEnd", "3 event(s) the hook numbered that never reached the server", "warning: freshness not checked"} {
		if !strings.Contains(string(human), want) {
			t.Errorf("logbook-verify does not say %q:\n%s", want, human)
		}
	}
	report(t, fmt.Sprintf("squat: over 127.0.0.1 the agent's server took an unpinned hook's event with 200; with the server's key pinned the hook refused its %d answers (not signed), counted them, and after the real server came back the record names them (squatter's journal: %d steps)\n", squatted, squatterGot)+"on unix:"+sock+" the agent could not listen (permission denied), the hook said not recorded, a socket in the agent's own folder was refused, and the real server recorded the events that followed; the verifier names the 3 events that never reached the server (1 the unpinned squatter took, 2 the hook could not send) and the 1 after SessionEnd:\n"+string(human))
}

// unixClient is an HTTP client that dials the socket at path.
func unixClient(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
}

// waitHTTP waits until base+/healthz answers.
func waitHTTP(t *testing.T, base string, c *http.Client) {
	t.Helper()
	if c == nil {
		c = http.DefaultClient
	}
	for i := 0; i < 250; i++ {
		if resp, err := c.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not answer", base)
}
