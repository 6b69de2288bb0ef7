package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

// fallbackCall is what the exec'd hook would have been given.
type fallbackCall struct {
	prog     string
	args     []string
	payload  []byte
	consumed bool
}

// gateRig is record-step --policy with its seams replaced: a fake
// logbook-policy file (only its identity counts), the exec'd hook and the
// decider's start captured.
type gateRig struct {
	t                      *testing.T
	prog, policy, key, dir string
	sockDir                string
	execs                  []fallbackCall
	starts                 [][]string
	env                    map[string]string
}

func newGateRig(t *testing.T) *gateRig {
	root, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	g := &gateRig{t: t, prog: filepath.Join(root, "logbook-policy"), policy: filepath.Join(root, "p.json"),
		key: filepath.Join(root, "k.pub"), dir: filepath.Join(root, "data"), sockDir: filepath.Join(root, "pd")}
	os.WriteFile(g.prog, []byte("binary v1"), 0o755)
	os.WriteFile(g.policy, []byte(`{"signed":"policy"}`), 0o644)
	os.WriteFile(g.key, []byte("key"), 0o644)
	g.env = map[string]string{"LOGBOOK_POLICYD_DIR": g.sockDir}
	oldB, oldE, oldS := besideProg, execHook, startDecider
	t.Cleanup(func() { besideProg, execHook, startDecider = oldB, oldE, oldS })
	besideProg = func(string) (string, error) { return g.prog, nil }
	execHook = func(prog string, args []string, payload []byte, consumed bool) error {
		g.execs = append(g.execs, fallbackCall{prog, args, bytes.Clone(payload), consumed})
		return errors.New("exec captured by the test")
	}
	startDecider = func(exe string, args, env []string) error {
		g.starts = append(g.starts, args)
		return nil
	}
	return g
}

// keyNow is the key record-step computes for the rig's files now.
func (g *gateRig) keyNow() string {
	id, err := decider.StatIdentity(g.prog)
	if err != nil {
		g.t.Fatal(err)
	}
	pol, keys, err := decider.Inputs(g.policy, []string{g.key})
	if err != nil {
		g.t.Fatal(err)
	}
	return decider.KeyOf(id, pol, keys, decider.Mode("deny", ""))
}

// serve puts a fake decider on the key's socket; each request is handed
// to answer, whose bytes (nil: none) are written back.
func (g *gateRig) serve(key string, answer func(r decider.Request) []byte) *int {
	if err := decider.Secure(g.sockDir); err != nil {
		g.t.Fatal(err)
	}
	l, err := net.Listen("unix", decider.Socket(g.sockDir, key))
	if err != nil {
		g.t.Fatal(err)
	}
	g.t.Cleanup(func() { l.Close() })
	n := new(int)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			*n++
			head := make([]byte, decider.HeaderLen)
			io.ReadFull(c, head)
			bl, _ := decider.BodyLen(head)
			body := make([]byte, bl)
			io.ReadFull(c, body)
			r, _, _ := decider.ParseRequest(append(head, body...))
			if out := answer(r); out != nil {
				c.Write(out)
			}
			c.Close()
		}
	}()
	return n
}

const gatedPayload = `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"}}`

func (g *gateRig) run(extra ...string) (code int, stdout, stderr string) {
	args := append([]string{"--dir", g.dir, "--policy", g.policy, "--policy-key", g.key}, extra...)
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(gatedPayload), &out, &errb, func(k string) string { return g.env[k] })
	return code, out.String(), errb.String()
}

func (g *gateRig) errorsLog() string {
	b, _ := os.ReadFile(filepath.Join(g.dir, "errors.log"))
	return string(b)
}

// TestGatedDeciderAnswers: the decider's answer is the hook's: stdout,
// stderr and exit status as they came; nothing is exec'd, nothing
// started.
func TestGatedDeciderAnswers(t *testing.T) {
	g := newGateRig(t)
	var got decider.Request
	g.serve(g.keyNow(), func(r decider.Request) []byte {
		got = r
		return (&decider.Answer{Key: r.Key, Exit: 2, Stdout: []byte(`{"x":1}`), Stderr: []byte("denied\n")}).Marshal()
	})
	code, out, errs := g.run("--harness", "claude-code")
	if code != 2 || out != `{"x":1}` || errs != "denied\n" || len(g.execs) != 0 || len(g.starts) != 0 {
		t.Fatalf("exit %d stdout %q stderr %q execs %d starts %d", code, out, errs, len(g.execs), len(g.starts))
	}
	cwd, _ := os.Getwd()
	if string(got.Payload) != gatedPayload || !got.Stdin || got.Cwd != cwd || got.Args[len(got.Args)-1] != "claude-code" || got.Args[0] != "--dir" || len(got.Env) == 0 {
		t.Errorf("request: %+v", got)
	}
}

// TestGatedDeciderMissing: no decider: one is started (detached, its
// files by absolute name, this socket directory) and the exec'd hook
// decides this call, with stdin untouched; nothing is reported (the first
// call of a policy always finds none). The exec failing blocks the call.
func TestGatedDeciderMissing(t *testing.T) {
	g := newGateRig(t)
	code, _, errs := g.run()
	if len(g.execs) != 1 || g.execs[0].consumed || g.execs[0].args[0] != "hook" || g.execs[0].prog != g.prog {
		t.Fatalf("execs %+v", g.execs)
	}
	if len(g.starts) != 1 || strings.Join(g.starts[0], " ") != "serve --policy "+g.policy+" --policy-key "+g.key+" --policy-fail deny --socket-dir "+g.sockDir {
		t.Errorf("starts %q", g.starts)
	}
	if strings.Contains(errs, "DECIDER") || g.errorsLog() != "" {
		t.Errorf("a missing decider reported: %q %q", errs, g.errorsLog())
	}
	// The exec could not run: fail closed, said.
	if code != 2 || !strings.Contains(errs, "cannot run") || !strings.Contains(errs, "blocked") {
		t.Errorf("exec failed: exit %d %q", code, errs)
	}
	code, _, _ = g.run("--policy-fail", "allow")
	if code != 0 {
		t.Errorf("exec failed, --policy-fail allow: exit %d", code)
	}
	// A decider that is starting (it holds the lock) is not started again.
	g.starts = nil
	f, _ := os.OpenFile(decider.LockFile(g.sockDir, g.keyNow()), os.O_RDWR|os.O_CREATE, 0o600)
	defer f.Close()
	flockNB(t, f)
	g.run()
	if len(g.starts) != 0 {
		t.Errorf("started beside a live lock: %q", g.starts)
	}
}

// TestGatedDeciderFails: a decider that dies mid-call, answers garbage
// or serves another key: the failure is named on stderr and in
// errors.log, and the exec'd hook decides the call with the payload
// already read.
func TestGatedDeciderFails(t *testing.T) {
	for _, c := range []struct {
		code   string
		answer func(r decider.Request) []byte
	}{
		{decider.ErrDied, func(decider.Request) []byte { return nil }},
		{decider.ErrDied, func(r decider.Request) []byte {
			m := (&decider.Answer{Key: r.Key, Stdout: []byte("cut")}).Marshal()
			return m[:len(m)-2]
		}},
		{decider.ErrGarbage, func(decider.Request) []byte { return []byte("HTTP/1.1 500 Oops\r\n\r\n") }},
		{decider.ErrWrongKey, func(decider.Request) []byte {
			return (&decider.Answer{Key: "ffffffffffffffffffffffffffffffff", Stdout: []byte("allow")}).Marshal()
		}},
	} {
		t.Run(c.code, func(t *testing.T) {
			g := newGateRig(t)
			g.serve(g.keyNow(), c.answer)
			code, out, errs := g.run()
			if !strings.Contains(errs, c.code) || !strings.Contains(g.errorsLog(), c.code) {
				t.Errorf("not named: stderr %q errors.log %q", errs, g.errorsLog())
			}
			if out != "" {
				t.Errorf("the failed decider's stdout reached the harness: %q", out)
			}
			if len(g.execs) != 1 || !g.execs[0].consumed || string(g.execs[0].payload) != gatedPayload {
				t.Fatalf("fallback %+v", g.execs)
			}
			if code != 2 {
				t.Errorf("exec failed too: exit %d, want 2 (fail closed)", code)
			}
		})
	}
}

// TestGatedStaleBinary: a rebuilt logbook-policy makes another key: the
// decider of the old binary is not asked (a new one is started).
func TestGatedStaleBinary(t *testing.T) {
	g := newGateRig(t)
	n := g.serve(g.keyNow(), func(r decider.Request) []byte { return (&decider.Answer{Key: r.Key}).Marshal() })
	if code, _, _ := g.run(); code != 0 || *n != 1 || len(g.execs) != 0 {
		t.Fatalf("first call: exit %d asked %d execs %d", code, *n, len(g.execs))
	}
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(g.prog, []byte("binary v2, rebuilt"), 0o755)
	g.run()
	if *n != 1 || len(g.execs) != 1 || len(g.starts) != 1 {
		t.Errorf("after the rebuild: old decider asked %d times, execs %d, starts %d", *n, len(g.execs), len(g.starts))
	}
	// The same for another policy file.
	os.WriteFile(g.policy, []byte(`{"signed":"policy v2"}`), 0o644)
	g.run()
	if *n != 1 || len(g.execs) != 2 {
		t.Errorf("after the policy changed: old decider asked %d times, execs %d", *n, len(g.execs))
	}
}

// TestGatedInsecureDir: a socket directory others can enter is not used,
// and said.
func TestGatedInsecureDir(t *testing.T) {
	g := newGateRig(t)
	os.Mkdir(g.sockDir, 0o755)
	os.Chmod(g.sockDir, 0o755)
	g.run()
	if len(g.execs) != 1 || len(g.starts) != 0 || !strings.Contains(g.errorsLog(), decider.ErrInsecure) {
		t.Errorf("execs %d starts %d errors.log %q", len(g.execs), len(g.starts), g.errorsLog())
	}
}

// TestGatedOff: LOGBOOK_POLICYD=off: every call is exec'd, as before the
// decider; none is started.
func TestGatedOff(t *testing.T) {
	g := newGateRig(t)
	g.env["LOGBOOK_POLICYD"] = "off"
	g.run()
	if len(g.execs) != 1 || g.execs[0].consumed || len(g.starts) != 0 {
		t.Errorf("execs %+v starts %q", g.execs, g.starts)
	}
}

func flockNB(t *testing.T, f *os.File) {
	if err := ostest.TryLock(f); err != nil {
		t.Fatal(err)
	}
}
