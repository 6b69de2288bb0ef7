package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerPortSquat: the agent (nobody) starts its own server where the
// logbook server should be, while that is down. On a loopback port it
// works: the hook gets a 200 from the squatter and the event is gone from
// the real record (the door a TCP address leaves open, which no hook can
// close: Claude Code's HTTP hooks check nothing of who answers). On a Unix
// socket in the server's own folder it cannot: the squatter cannot create
// the socket, and a socket in a folder the agent owns is refused by the
// hook; record-step says "not recorded" on stderr and in errors.log
// instead of taking a stranger's 200. Once the real server is up on the
// socket, the same hook records at level server. Needs root (as on CI).
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
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
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

	// 1. A loopback port: the squatter answers, the hook is satisfied.
	port := freePort(t)
	sq, _ := squat(port)
	waitHTTP(t, "http://"+port, nil)
	if stderr, _ := hook("http://"+port, 0); stderr != "" {
		t.Fatalf("over TCP the squatter's 200 was not taken: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(agentHome, "squat-data", "squat-sess.steps.jsonl")); err != nil {
		t.Fatalf("the squatter did not get the event: %v", err)
	}
	sq.Process.Kill()
	sq.Wait()

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
	_ = srv
	for i := 4; i < 8; i++ {
		if stderr, _ := hook("unix:"+sock, i); stderr != "" {
			t.Fatalf("record-step over the socket: %s", stderr)
		}
	}
	// The two events the hook could not send (2. and 3.) came with the
	// first that was sent, as a logbook.unsent note.
	b, err := os.ReadFile(filepath.Join(data, "squat-sess.steps.jsonl"))
	if err != nil || bytes.Count(b, []byte("\n")) != 6 || !bytes.Contains(b, []byte(`"logbook.unsent"`)) {
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
	resp, err := uc.Get("http://localhost/v1/sessions/squat-sess/record")
	if err != nil {
		t.Fatal(err)
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
			Unsent   int `json:"unsentEvents"`
			AfterEnd int `json:"afterSessionEnd"`
		} `json:"gaps"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out, &v); err != nil || !v.OK || v.Level != "server" || v.Gaps.Unsent != 2 || v.Gaps.AfterEnd != 1 {
		t.Fatalf("want OK level server with 2 unsent events and 1 after SessionEnd named: %s", out)
	}
	human, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--pubkey", key+".pub", "--checkpoint", filepath.Join(dir, "r.checkpoint"),
		"--checkpoint-key", key+".vkey", filepath.Join(dir, "r.json")).Output()
	for _, want := range []string{"1 event(s) after a SessionEnd", "2 event(s) the hook could not send to the server", "warning: freshness not checked"} {
		if !strings.Contains(string(human), want) {
			t.Errorf("logbook-verify does not say %q:\n%s", want, human)
		}
	}
	report(t, "squat: over 127.0.0.1 the agent's server took an event with 200; on unix:"+sock+" the agent could not listen (permission denied), the hook said not recorded, a socket in the agent's own folder was refused, and the real server recorded the events that followed; the verifier names the 2 events the hook could not send and the 1 after SessionEnd:\n"+string(human))
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
