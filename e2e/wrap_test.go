package e2e

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// wrapRun is one logbook-wrap process: its exit status and output.
type wrapRun struct {
	code           int
	stdout, stderr []byte
}

// wrapCmd builds a logbook-wrap command in its own session (setsid: no
// controlling terminal, so every signal sent to it is passed on).
func wrapCmd(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, "logbook-wrap"), args...)
	cmd.Env = append(os.Environ(), env...)
	ownSession(cmd)
	return cmd
}

func wrap(t *testing.T, env []string, args ...string) wrapRun {
	t.Helper()
	cmd := wrapCmd(env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := wrapRun{stdout: out.Bytes(), stderr: errb.Bytes()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestWrapExitCodes: through the binary, the wrapper exits as the command
// did (0, 1, 3, 128+N for signal N, 127 and 126 when it cannot start), and
// every command is a start and an end step of one verified record.
func TestWrapExitCodes(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	noexec := filepath.Join(work, "noexec.sh")
	os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644)
	env := []string{"LOGBOOK_DIR=" + dir, "LOGBOOK_SESSION=ci-1"}
	cases := []struct {
		argv []string
		code int
	}{
		{[]string{"true"}, 0},
		{[]string{"false"}, 1},
		{[]string{"sh", "-c", "exit 3"}, 3},
		{[]string{"sh", "-c", "kill -KILL $$"}, 128 + 9},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + 15},
		{[]string{"logbook-no-such-command"}, 127},
		{[]string{noexec}, 126},
	}
	for _, c := range cases {
		r := wrap(t, env, append([]string{"--"}, c.argv...)...)
		if r.code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.argv, r.code, c.code, r.stderr)
		}
	}
	if r := wrap(t, env, "--", "logbook-no-such-command"); !strings.Contains(string(r.stderr), "logbook-wrap: logbook-no-such-command: command not found") {
		t.Errorf("stderr %q", r.stderr)
	}
	out := filepath.Join(work, "r.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", "ci-1", "--key", key, "--out", out)
	if v := verify(t, out, pub); !v.OK || *v.StepCount != int64(2*len(cases)+2) {
		t.Fatalf("%+v", v)
	}
	rec := readRecord(t, out)
	for i, c := range cases {
		start, end := rec.Steps[2*i], rec.Steps[2*i+1]
		if start.Data["event"] != "logbook-wrap.start" || end.Data["event"] != "logbook-wrap.end" ||
			start.Data["toolUseId"] != end.Data["toolUseId"] || start.Kind != "exec" || end.Kind != "exec" {
			t.Fatalf("command %d: steps %+v %+v", i, start, end)
		}
		if got := end.Data["exitCode"]; got != float64(c.code) {
			t.Errorf("%v: recorded exit %v", c.argv, got)
		}
	}
	if rec.Session["agent"] != "logbook-wrap" {
		t.Errorf("agent %v", rec.Session["agent"])
	}

	// The wrapper's own failures are 125, and nothing runs.
	for _, args := range [][]string{
		{"--", "true"}, // no session
		{"--session", "x"},
		{"--session", "../x", "--", "true"},
		{"--session", "x", "--key", key, "--", "true"}, // --key without --out
		{"--out", out, "--dir", dir, "--", "true"},
		{"--session", "x", "--materials", "[", "--", "true"},
		{"--session", "x", "--materials", "nosuch/*.c", "--", "true"},
	} {
		r := wrap(t, []string{"LOGBOOK_DIR=" + dir, "LOGBOOK_SESSION="}, args...)
		if r.code != 125 || len(r.stdout) != 0 || len(r.stderr) == 0 {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	// An unknown flag is 2, as for every logbook command.
	if r := wrap(t, []string{"LOGBOOK_DIR=" + dir}, "--bogus"); r.code != 2 || len(r.stdout) != 0 || len(r.stderr) == 0 {
		t.Errorf("--bogus: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestWrapByteIdentical: stdout and stderr come through the binary byte for
// byte (binary data, every byte value, no trailing newline), and the
// record holds their digests and lengths.
func TestWrapByteIdentical(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	out := make([]byte, 5<<20+3)
	rand.Read(out)
	for i := 0; i < 256; i++ {
		out[i] = byte(i)
	}
	errb := []byte("\x00\r\nerr without newline \xff\xfe")
	os.WriteFile(filepath.Join(work, "out.bin"), out, 0o600)
	os.WriteFile(filepath.Join(work, "err.bin"), errb, 0o600)
	rec := filepath.Join(work, "r.json")
	cmd := wrapCmd(nil, "--out", rec, "--key", key, "--", "sh", "-c", "cat err.bin >&2; cat out.bin")
	cmd.Dir = work
	cmd.Stdin = bytes.NewReader([]byte("stdin is passed through"))
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v %s", err, se.Bytes())
	}
	if !bytes.Equal(so.Bytes(), out) || !bytes.Equal(se.Bytes(), errb) {
		t.Fatalf("output changed: stdout %d bytes (want %d), stderr %q", so.Len(), len(out), se.Bytes())
	}
	if v := verify(t, rec, pub); !v.OK {
		t.Fatalf("%+v", v)
	}
	end := readRecord(t, rec).Steps[1].Data
	if end["stdoutSha256"] != sha(out) || end["stdoutBytes"] != float64(len(out)) ||
		end["stderrSha256"] != sha(errb) || end["stderrBytes"] != float64(len(errb)) {
		t.Errorf("digests %v", end)
	}
	// The one-shot's private in-progress directory is gone.
	if m, _ := filepath.Glob(filepath.Join(work, ".logbook-wrap-*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// TestWrapSignalForwarding: SIGTERM and SIGINT sent to the wrapper reach
// the command; one that handles them exits as it chooses, one that does
// not dies of them (128+N); the record names the signal passed on.
func TestWrapSignalForwarding(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	trap := `trap 'exit 42' TERM INT; echo ready; while :; do sleep 0.02; done`
	for _, c := range []struct {
		script string
		sig    syscall.Signal
		code   int
	}{
		{trap, syscall.SIGTERM, 42},
		{trap, syscall.SIGINT, 42},
		{"echo ready; exec sleep 30", syscall.SIGTERM, 143},
		{"echo ready; exec sleep 30", syscall.SIGINT, 130},
	} {
		t.Run(fmt.Sprintf("%v/%d", c.sig, c.code), func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "r.json")
			cmd := wrapCmd(nil, "--out", rec, "--key", key, "--", "sh", "-c", c.script)
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, stdout, "ready")
			cmd.Process.Signal(c.sig) // to the wrapper only, not its group
			done := make(chan error, 1)
			go func() { io.Copy(io.Discard, stdout); done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the command did not end")
			}
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Fatalf("exit %d, want %d", got, c.code)
			}
			if v := verify(t, rec, pub); !v.OK {
				t.Fatalf("%+v", v)
			}
			end := readRecord(t, rec).Steps[1].Data
			if fmt.Sprint(end["forwardedSignals"]) != fmt.Sprintf("[%s]", sigName(c.sig)) {
				t.Errorf("forwardedSignals %v", end["forwardedSignals"])
			}
		})
	}
}

func sigName(s syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[s]
}

func waitFor(t *testing.T, r io.Reader, want string) {
	t.Helper()
	var got []byte
	buf := make([]byte, 256)
	for !bytes.Contains(got, []byte(want)) {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("waiting for %q: %v (got %q)", want, err, got)
		}
		got = append(got, buf[:n]...)
	}
}

// TestWrapKilled: a wrapper killed outright (SIGKILL: no chance to record
// the end) leaves its start step, and the seal names the command as never
// finished. A one-shot leaves its in-progress file for logbook-seal.
func TestWrapKilled(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	cmd := wrapCmd([]string{"LOGBOOK_DIR=" + dir}, "--session", "k", "--", "sh", "-c", "echo ready; exec sleep 30")
	stdout, _ := cmd.StdoutPipe()
	cmd.Start()
	waitFor(t, stdout, "ready")
	killGroup(cmd.Process.Pid) // the wrapper and the command
	cmd.Wait()
	out := filepath.Join(work, "k.json")
	got := run(t, nil, "logbook-seal", "--dir", dir, "--session", "k", "--key", key, "--out", out)
	if !strings.Contains(got, "1 unfinished tool call(s) named in a note") {
		t.Errorf("seal said %q", got)
	}
	if v := verify(t, out, pub); !v.OK || *v.StepCount != 2 {
		t.Fatalf("%+v", v)
	}
	rec := readRecord(t, out)
	if rec.Steps[0].Data["event"] != "logbook-wrap.start" || rec.Steps[1].Data["event"] != "logbook.unfinishedToolCalls" {
		t.Errorf("steps %+v", rec.Steps)
	}

	oneShot := filepath.Join(work, "one", "r.json")
	os.MkdirAll(filepath.Dir(oneShot), 0o755)
	cmd = wrapCmd(nil, "--out", oneShot, "--key", key, "--", "sh", "-c", "echo ready; exec sleep 30")
	stdout, _ = cmd.StdoutPipe()
	cmd.Start()
	waitFor(t, stdout, "ready")
	killGroup(cmd.Process.Pid)
	cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(work, "one", ".logbook-wrap-*", "*.steps.jsonl"))
	if len(left) != 1 {
		t.Fatalf("in-progress files left: %v", left)
	}
	if _, err := os.Stat(oneShot); err == nil {
		t.Errorf("a record was written by a killed wrapper")
	}
	// What it left (the steps, and the record's temporary file if it was
	// made before the kill) seals as the hint says, into --out.
	priv := filepath.Dir(left[0])
	id := strings.TrimSuffix(filepath.Base(left[0]), ".steps.jsonl")
	run(t, nil, "logbook-seal", "--dir", priv, "--session", id, "--key", key, "--out", oneShot)
	if v := verify(t, oneShot, pub); !v.OK || *v.StepCount != 2 {
		t.Fatalf("%+v", v)
	}
}

// TestWrapSession: wrapped commands of one CI job, some side by side, go
// into one session; logbook-seal seals it once. Materials and products
// are digested; the signing key never reaches a wrapped command.
func TestWrapSession(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	keyPEM, _ := os.ReadFile(key)
	dir := filepath.Join(work, "sessions")
	src := filepath.Join(work, "src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "main.c"), []byte("int main(){}\n"), 0o644)
	env := []string{"LOGBOOK_DIR=" + dir, "LOGBOOK_SESSION=job", "LOGBOOK_SIGNING_KEY=" + string(keyPEM)}
	cmd := wrapCmd(env, "--agent", "make", "--goal", "build", "--materials", "src/*.c", "--products", "build/**",
		"--", "sh", "-c", `mkdir -p build && cp src/main.c build/app && printf %s "${LOGBOOK_SIGNING_KEY:-no key}"`)
	cmd.Dir = work
	got, err := cmd.Output()
	if err != nil || string(got) != "no key" {
		t.Fatalf("%v: the command saw %q", err, got)
	}
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			wrap(t, env, "--", "sh", "-c", fmt.Sprintf("exit %d", i))
		}(i)
	}
	wg.Wait()
	out := filepath.Join(work, "job.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", "job", "--key", key, "--out", out, "--goal", "CI job")
	if v := verify(t, out, pub); !v.OK || *v.StepCount != 14 {
		t.Fatalf("%+v", v)
	}
	rec := readRecord(t, out)
	if rec.Session["agent"] != "make" || rec.Session["goal"] != "CI job" {
		t.Errorf("session %v", rec.Session)
	}
	start, end := rec.Steps[0].Data, rec.Steps[1].Data
	if fmt.Sprint(start["materials"]) != fmt.Sprintf("[map[bytes:13 path:src/main.c sha256:%s]]", sha([]byte("int main(){}\n"))) {
		t.Errorf("materials %v", start["materials"])
	}
	if fmt.Sprint(end["products"]) != fmt.Sprintf("[map[bytes:13 change:new path:build/app sha256:%s]]", sha([]byte("int main(){}\n"))) {
		t.Errorf("products %v", end["products"])
	}
	if start["goal"] != "build" || start["agent"] != "make" {
		t.Errorf("start data %v", start)
	}
	ids := map[any]int{}
	for _, s := range rec.Steps {
		ids[s.Data["toolUseId"]]++
	}
	for id, n := range ids {
		if n != 2 {
			t.Errorf("toolUseId %v on %d steps", id, n)
		}
	}
}

// TestWrapRecorderAndRedaction: a one-shot record names logbook-wrap as
// its recorder, with the SHA-256 of the binary; the project's redact.json
// hides its own secret shape in the command line and the goal; an unusable redact.json
// stops the wrapper before the command runs.
func TestWrapRecorderAndRedaction(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	proj := filepath.Join(work, "project")
	os.MkdirAll(proj, 0o700)
	os.WriteFile(filepath.Join(proj, "redact.json"), []byte(`{"patterns":[{"name":"acme","regexp":"acme_[0-9a-f]{32}"}]}`), 0o600)
	env := []string{"LOGBOOK_DIR=" + proj, "LOGBOOK_NOW=2026-05-01T00:00:00Z"}
	out := filepath.Join(work, "one.json")
	secret := "acme_0123456789abcdef0123456789abcdef"
	// The goal too: the seal reads the project's patterns beside the steps.
	if r := wrap(t, env, "--out", out, "--key", key, "--goal", "ship "+secret, "--", "echo", secret); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if v := verify(t, out, pub); !v.OK {
		t.Fatalf("%+v", v)
	}
	data, _ := os.ReadFile(out)
	if bytes.Contains(data, []byte(secret)) {
		t.Fatal("the project's secret shape survives in the record")
	}
	rec := readRecord(t, out)
	exe, _ := os.ReadFile(filepath.Join(bin, "logbook-wrap"))
	r, _ := rec.Session["recorder"].(map[string]any)
	if r == nil || r["name"] != "logbook-wrap" || r["sha256"] != sha(exe) {
		t.Fatalf("session.recorder %v, want logbook-wrap with the binary's digest", rec.Session["recorder"])
	}

	os.WriteFile(filepath.Join(proj, "redact.json"), []byte(`{"patterns":[{"regexp":"x*"}]}`), 0o600)
	marker := filepath.Join(work, "ran")
	res := wrap(t, env, "--out", filepath.Join(work, "two.json"), "--key", key, "--", "touch", marker)
	if res.code != 125 || !bytes.Contains(res.stderr, []byte("redact.json")) {
		t.Fatalf("unusable redact.json: exit %d, %s", res.code, res.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran although the redaction config is unusable")
	}
}
