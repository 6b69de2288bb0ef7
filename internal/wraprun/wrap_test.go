package wraprun

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// harness runs Run with its steps kept in memory and its output in files.
type harness struct {
	t              *testing.T
	dir            string
	steps          []chain.Step
	log            []string
	stdout, stderr *os.File
	opt            Options
}

func newHarness(t *testing.T, argv ...string) *harness {
	h := &harness{t: t, dir: t.TempDir()}
	var err error
	if h.stdout, err = os.Create(filepath.Join(t.TempDir(), "stdout")); err != nil {
		t.Fatal(err)
	}
	if h.stderr, err = os.Create(filepath.Join(t.TempDir(), "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.stdout.Close(); h.stderr.Close() })
	h.opt = Options{
		Argv: argv, Cwd: h.dir, Env: os.Environ(),
		Stdout: h.stdout, Stderr: h.stderr,
		ID:     "wrap_test",
		Now:    func() string { return "2026-05-01T00:00:00Z" },
		Record: func(s chain.Step) error { h.steps = append(h.steps, s); return nil },
		Log:    func(m string) { h.log = append(h.log, m) },
	}
	return h
}

func (h *harness) run() Result {
	h.t.Helper()
	res := Run(h.opt)
	if res.Steps != len(h.steps) {
		h.t.Fatalf("Result.Steps %d, %d steps recorded", res.Steps, len(h.steps))
	}
	return res
}

func (h *harness) end() *strictjson.Value {
	h.t.Helper()
	if len(h.steps) != 2 {
		h.t.Fatalf("%d steps, want a start and an end (log %q)", len(h.steps), h.log)
	}
	for i, s := range h.steps {
		if s.Kind != "exec" {
			h.t.Errorf("step %d kind %q", i, s.Kind)
		}
		if id, _ := s.Data.GetString("toolUseId"); id != "wrap_test" {
			h.t.Errorf("step %d toolUseId %q", i, id)
		}
		if _, _, err := chain.Link(s, int64(i), ""); err != nil {
			h.t.Errorf("step %d does not link: %v", i, err)
		}
	}
	if ev, _ := h.steps[0].Data.GetString("event"); ev != EventStart {
		h.t.Errorf("first step event %q", ev)
	}
	if ev, _ := h.steps[1].Data.GetString("event"); ev != EventEnd {
		h.t.Errorf("second step event %q", ev)
	}
	return &h.steps[1].Data
}

func num(t *testing.T, d *strictjson.Value, key string) int64 {
	t.Helper()
	v := d.Get(key)
	if v == nil || v.Kind != strictjson.Number {
		t.Fatalf("data.%s missing: %s", key, show(d))
	}
	var n int64
	fmt.Sscan(v.Str, &n)
	return n
}

func show(v *strictjson.Value) string {
	b, _ := jcs.Append(nil, v)
	return string(b)
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		script string
		code   int
		signal string
	}{
		{"exit 0", 0, ""},
		{"exit 1", 1, ""},
		{"exit 3", 3, ""},
		{"exit 255", 255, ""},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM), "SIGTERM"},
		{"kill -KILL $$", 128 + int(syscall.SIGKILL), "SIGKILL"},
		{"kill -SEGV $$", 128 + int(syscall.SIGSEGV), "SIGSEGV"},
	} {
		t.Run(c.script, func(t *testing.T) {
			h := newHarness(t, "sh", "-c", c.script)
			res := h.run()
			if res.ExitCode != c.code || res.Err != nil {
				t.Fatalf("exit %d (%v), want %d", res.ExitCode, res.Err, c.code)
			}
			d := h.end()
			if got := num(t, d, "exitCode"); got != int64(c.code) {
				t.Errorf("data.exitCode %d", got)
			}
			if sig, _ := d.GetString("signal"); sig != c.signal {
				t.Errorf("data.signal %q, want %q", sig, c.signal)
			}
			want := fmt.Sprintf("exec exit %d after ", c.code)
			if c.signal != "" {
				want = fmt.Sprintf("exec killed by %s (exit %d) after ", c.signal, c.code)
			}
			if s := h.steps[1].Summary; !strings.HasPrefix(s, want) || !strings.HasSuffix(s, ": sh -c '"+c.script+"'") {
				t.Errorf("summary %q", s)
			}
		})
	}
}

func TestNotStarted(t *testing.T) {
	noexec := filepath.Join(t.TempDir(), "script")
	os.WriteFile(noexec, []byte("#!/bin/sh\necho hi\n"), 0o644)
	badInterp := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(badInterp, []byte("#!/nonexistent/interpreter\n"), 0o755)
	for _, c := range []struct {
		name string
		argv []string
		code int
		why  string
	}{
		{"not on PATH", []string{"logbook-no-such-command-x"}, 127, "command not found"},
		{"no such file", []string{"./no/such/file"}, 127, "no such file or directory"},
		{"not executable", []string{noexec}, 126, "permission denied"},
		{"missing interpreter", []string{badInterp}, 126, "no such file or directory (a missing script interpreter?)"},
		{"a directory", []string{"/"}, 126, "is a directory"},
		{"an empty name", []string{""}, 127, "no such file or directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.argv...)
			res := h.run()
			if res.ExitCode != c.code || res.Err != nil {
				t.Fatalf("exit %d (%v), want %d", res.ExitCode, res.Err, c.code)
			}
			d := h.end()
			if why, _ := d.GetString("startError"); why != c.why {
				t.Errorf("startError %q, want %q", why, c.why)
			}
			if num(t, d, "exitCode") != int64(c.code) || num(t, d, "stdoutBytes") != 0 {
				t.Errorf("data %s", show(d))
			}
			if len(h.log) != 1 || !strings.Contains(h.log[0], c.why) {
				t.Errorf("message %q", h.log)
			}
			if !strings.HasPrefix(h.steps[1].Summary, fmt.Sprintf("exec not started (exit %d: ", c.code)) {
				t.Errorf("summary %q", h.steps[1].Summary)
			}
		})
	}
}

// TestOutputByteIdentical: binary stdout and stderr, with no trailing
// newline and larger than any buffer, come out unchanged, and the digests
// and counts are those of the bytes.
func TestOutputByteIdentical(t *testing.T) {
	dir := t.TempDir()
	out := make([]byte, 3<<20+7) // three buffers and a bit
	rand.Read(out)
	for i := 0; i < 256; i++ {
		out[i] = byte(i) // every byte value, NUL and \r included
	}
	errb := []byte("warning: no newline at the end\x00\xff")
	os.WriteFile(filepath.Join(dir, "out.bin"), out, 0o600)
	os.WriteFile(filepath.Join(dir, "err.bin"), errb, 0o600)
	h := newHarness(t, "sh", "-c", "cat out.bin; cat err.bin >&2; cat out.bin")
	h.opt.Cwd = dir
	if res := h.run(); res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	want := append(append([]byte{}, out...), out...)
	gotOut, _ := os.ReadFile(h.stdout.Name())
	gotErr, _ := os.ReadFile(h.stderr.Name())
	if !bytes.Equal(gotOut, want) || !bytes.Equal(gotErr, errb) {
		t.Fatalf("output changed: stdout %d bytes (want %d), stderr %q", len(gotOut), len(want), gotErr)
	}
	d := h.end()
	if s, _ := d.GetString("stdoutSha256"); s != sum(want) || num(t, d, "stdoutBytes") != int64(len(want)) {
		t.Errorf("stdout digest %s %d", s, num(t, d, "stdoutBytes"))
	}
	if s, _ := d.GetString("stderrSha256"); s != sum(errb) || num(t, d, "stderrBytes") != int64(len(errb)) {
		t.Errorf("stderr digest %s", s)
	}
	outs := h.steps[1].Outputs
	if len(outs) != 2 || outs[0] != sum(want) || outs[1] != sum(errb) {
		t.Errorf("outputsSha256 %v", outs)
	}
}

// TestStdinPassedThrough: the command reads the wrapper's stdin itself.
func TestStdinPassedThrough(t *testing.T) {
	in, _ := os.Create(filepath.Join(t.TempDir(), "in"))
	in.WriteString("line one\nline two")
	in.Seek(0, 0)
	defer in.Close()
	h := newHarness(t, "cat")
	h.opt.Stdin = in
	h.run()
	if got, _ := os.ReadFile(h.stdout.Name()); string(got) != "line one\nline two" {
		t.Fatalf("stdout %q", got)
	}
}

// waitFor reads r until it has seen want (the command saying it is ready).
func waitFor(t *testing.T, r io.Reader, want string) {
	t.Helper()
	var got []byte
	buf := make([]byte, 64)
	for !bytes.Contains(got, []byte(want)) {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("waiting for %q: %v (got %q)", want, err, got)
		}
		got = append(got, buf[:n]...)
	}
}

// TestSignalForwarding: a signal sent to the wrapper reaches the command,
// which may handle it (exit 42) or die of it (128+N); the step names it.
// One the terminal already delivered is not sent a second time.
func TestSignalForwarding(t *testing.T) {
	trap := `trap 'echo caught >&2; exit 42' TERM INT; echo ready; while :; do sleep 0.02; done`
	for _, c := range []struct {
		name     string
		script   string
		sig      syscall.Signal
		code     int
		keyboard bool
	}{
		{"TERM handled", trap, syscall.SIGTERM, 42, false},
		{"INT handled", trap, syscall.SIGINT, 42, false},
		{"TERM kills", "echo ready; exec sleep 30", syscall.SIGTERM, 128 + 15, false},
		{"HUP kills", "echo ready; exec sleep 30", syscall.SIGHUP, 128 + 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "sh", "-c", c.script)
			r, w, _ := os.Pipe()
			defer r.Close()
			h.opt.Stdout = w
			sigs := make(chan os.Signal, 1)
			h.opt.Signals = sigs
			done := make(chan Result)
			go func() { done <- Run(h.opt); w.Close() }()
			waitFor(t, r, "ready")
			sigs <- c.sig
			var res Result
			select {
			case res = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the command did not end after the signal")
			}
			if res.ExitCode != c.code {
				t.Fatalf("exit %d, want %d", res.ExitCode, c.code)
			}
			d := h.end()
			fw := d.Get("forwardedSignals")
			if fw == nil || len(fw.Items) != 1 || fw.Items[0].Str != SignalName(c.sig) {
				t.Errorf("forwardedSignals %s", show(d))
			}
		})
	}
	t.Run("from the terminal", func(t *testing.T) {
		h := newHarness(t, "sh", "-c", trap)
		r, w, _ := os.Pipe()
		defer r.Close()
		h.opt.Stdout = w
		sigs := make(chan os.Signal, 2)
		h.opt.Signals = sigs
		h.opt.Keyboard = func(s os.Signal) bool { return s == syscall.SIGINT }
		done := make(chan Result)
		go func() { done <- Run(h.opt); w.Close() }()
		waitFor(t, r, "ready")
		sigs <- syscall.SIGINT // the terminal sent it to the command already: not again
		time.Sleep(200 * time.Millisecond)
		select {
		case res := <-done:
			t.Fatalf("the command got the keyboard's SIGINT from the wrapper (exit %d)", res.ExitCode)
		default:
		}
		sigs <- syscall.SIGTERM
		if res := <-done; res.ExitCode != 42 {
			t.Fatalf("exit %d", res.ExitCode)
		}
		if fw := h.end().Get("forwardedSignals"); fw == nil || len(fw.Items) != 1 || fw.Items[0].Str != "SIGTERM" {
			t.Errorf("forwardedSignals %v", fw)
		}
	})
}

// TestStartNotRecorded: when the start step cannot be recorded the
// command does not run, and the wrapper fails with 125.
func TestStartNotRecorded(t *testing.T) {
	h := newHarness(t, "touch", "ran")
	h.opt.Record = func(chain.Step) error { return errors.New("disk full") }
	res := Run(h.opt)
	if res.ExitCode != ExitFailure || res.Steps != 0 || !strings.Contains(res.Err.Error(), "disk full") {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "ran")); err == nil {
		t.Fatal("the command ran unrecorded")
	}
}

// TestEndNotRecorded: the command ran; the wrapper says it could not
// record the end and fails with 125 (the start step shows the gap).
func TestEndNotRecorded(t *testing.T) {
	h := newHarness(t, "true")
	n := 0
	h.opt.Record = func(chain.Step) error {
		if n++; n == 2 {
			return errors.New("disk full")
		}
		return nil
	}
	res := Run(h.opt)
	if res.ExitCode != ExitFailure || res.Steps != 1 || !strings.Contains(res.Err.Error(), "exited 0 but its end could not be recorded") {
		t.Fatalf("%+v", res)
	}
}

// TestOutputHeldOpen: a background process that keeps stdout open does not
// keep the wrapper waiting past the grace period.
func TestOutputHeldOpen(t *testing.T) {
	h := newHarness(t, "sh", "-c", "echo hi; sleep 3 & exit 0")
	h.opt.Grace = 100 * time.Millisecond
	t0 := time.Now()
	res := h.run()
	if el := time.Since(t0); el > 2*time.Second || res.ExitCode != 0 {
		t.Fatalf("exit %d after %v", res.ExitCode, el)
	}
	d := h.end()
	if v := d.Get("outputHeldOpen"); v == nil || v.Kind != strictjson.True {
		t.Errorf("outputHeldOpen missing: %s", show(d))
	}
	if s, _ := d.GetString("stdoutSha256"); s != sum([]byte("hi\n")) {
		t.Errorf("stdout digest %s", s)
	}
}

// TestReaderGone: when the wrapper's stdout is a pipe nobody reads, the
// command gets SIGPIPE as it would without the wrapper, and the step says
// how much was passed on.
func TestReaderGone(t *testing.T) {
	h := newHarness(t, "sh", "-c", "yes")
	r, w, _ := os.Pipe()
	r.Close()
	defer w.Close()
	h.opt.Stdout = w
	res := h.run()
	if res.ExitCode != 128+int(syscall.SIGPIPE) {
		t.Fatalf("exit %d", res.ExitCode)
	}
	d := h.end()
	if e, _ := d.GetString("stdoutError"); e != "broken pipe" {
		t.Errorf("stdoutError %q in %s", e, show(d))
	}
	if num(t, d, "stdoutBytes") != 0 {
		t.Errorf("stdoutBytes %d", num(t, d, "stdoutBytes"))
	}
}

// TestCommandLineRedacted: secrets in the arguments never reach the steps.
func TestCommandLineRedacted(t *testing.T) {
	secrets := []string{"hunter 2", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "s3cr3tpw", "abcdef123456abcdef"}
	h := newHarness(t, "true", "deploy", "--password", "hunter 2", "--token=ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"https://bob:s3cr3tpw@example.com/x", "-H", "Authorization: Bearer abcdef123456abcdef")
	h.opt.Goal = "deploy with ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	h.run()
	for _, s := range h.steps {
		text := s.Summary + show(&s.Data)
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("%q is in the step: %s", secret, text)
			}
		}
		if !strings.Contains(text, "[REDACTED]") {
			t.Errorf("nothing redacted: %s", text)
		}
	}
}

func TestCommandLine(t *testing.T) {
	for argv, want := range map[string]string{
		"make\x00test":                    "make test",
		"echo\x00a b\x00it's":             `echo 'a b' 'it'\''s'`,
		"env\x00A=1\x00--password=a b":    `env A=1 --password='a b'`,
		"printf\x00\x00x=\x00=v\x00$HOME": `printf '' x= =v '$HOME'`,
		"sh\x00-c\x00echo \"hi\"; exit 3": `sh -c 'echo "hi"; exit 3'`,
	} {
		if got := CommandLine(strings.Split(argv, "\x00")); got != want {
			t.Errorf("%q: got %s, want %s", argv, got, want)
		}
	}
}

// TestWithoutPidfd runs the cases that depend on seeing the command's end
// down the path taken where the kernel gives no pidfd (a goroutine waits).
func TestWithoutPidfd(t *testing.T) {
	usePidfd = false
	defer func() { usePidfd = true }()
	t.Run("exit codes", TestExitCodes)
	t.Run("output", TestOutputByteIdentical)
	t.Run("signals", TestSignalForwarding)
	t.Run("held open", TestOutputHeldOpen)
	t.Run("reader gone", TestReaderGone)
}
