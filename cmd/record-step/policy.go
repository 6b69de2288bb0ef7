package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
)

// policyCall is what the gate needs of record-step's command line.
type policyCall struct {
	args     []string // record-step's arguments, handed on as they are
	policy   string
	keys     []string
	failMode string // --policy-fail as given
	require  string // --require-policy as given
	inArgs   bool   // the payload is the last argument (Codex's notify)
}

// Seams for the tests: where logbook-policy is, how the exec'd hook is
// run (it replaces this process), how a decider is started.
var (
	besideProg   = beside
	execHook     = execHookReal
	startDecider = decider.Start
)

// askTimeout bounds the whole exchange with the decider (the
// decider records the call, which may wait for the session's lock).
const askTimeout = 30 * time.Second

// gated decides and records a call under the organization policy. CEL
// and protobuf stay out of this program (their start-up is the cost,
// docs/performance.md): the call goes to the user's long-lived decider
// for this policy (logbook-policy serve) when one listens, which runs
// logbook-policy hook's own code for it; else to logbook-policy hook,
// exec'd in this process's place as before, and a decider is started
// for the calls to come. Whatever fails on the decider's path, the call
// is still decided by the exec'd hook, never let through ungated; when
// even that cannot run, it is blocked unless the hook fails open.
func gated(pc policyCall, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, report func(string)) int {
	prog, err := besideProg("logbook-policy")
	if err != nil {
		fmt.Fprintln(stderr, "record-step:", err)
		return blocked(pc, stderr)
	}
	var payload []byte
	consumed := false
	// No decider where the system cannot tell who answers on its socket
	// (Windows: decider.Supported): each call goes to the exec'd hook.
	if decider.Supported && getenv("LOGBOOK_POLICYD") != "off" {
		var code int
		var done bool
		code, done, payload, consumed = viaDecider(pc, prog, stdin, stdout, stderr, getenv, report)
		if done {
			return code
		}
	}
	err = execHook(prog, append([]string{"hook"}, pc.args...), payload, consumed)
	fmt.Fprintf(stderr, "record-step: cannot run %s (%v): build it beside record-step (go build ./cmd/...)\n", prog, err)
	return blocked(pc, stderr)
}

func blocked(pc policyCall, stderr io.Writer) int {
	if pc.failMode == "allow" {
		return 0
	}
	fmt.Fprintln(stderr, "record-step: the organization policy could not be applied, so the call is blocked (--policy-fail deny)")
	return 2
}

// viaDecider asks the decider. done false: the exec'd hook must decide
// the call; consumed says stdin was read (payload holds it).
func viaDecider(pc policyCall, prog string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, report func(string)) (code int, done bool, payload []byte, consumed bool) {
	id, err := decider.StatIdentity(prog)
	if err != nil {
		return 0, false, nil, false // the exec says why
	}
	cwd, err := os.Getwd()
	if err != nil {
		// The decider resolves relative paths against the caller's
		// directory: without one, the hook runs here.
		return 0, false, nil, false
	}
	pol, keys, err := decider.Inputs(pc.policy, pc.keys)
	if err != nil {
		return 0, false, nil, false // the hook names the unreadable file
	}
	key := decider.KeyOf(id, pol, keys, decider.Mode(pc.failMode, pc.require))
	dir := decider.Dir(getenv)
	if err := decider.Secure(dir); err != nil {
		report(fmt.Sprintf("the policy decider is not used: %v; the call goes to logbook-policy hook", err))
		return 0, false, nil, false
	}
	if sock := decider.Socket(dir, key); len(sock) > 107 {
		// No decider could ever listen there: starting one per call
		// would pay CEL's start-up for nothing, unseen.
		report(fmt.Sprintf("the policy decider is not used: its socket %s is over 107 bytes (set LOGBOOK_POLICYD_DIR to a shorter directory); the call goes to logbook-policy hook", sock))
		return 0, false, nil, false
	}
	conn, err := decider.Connect(decider.Socket(dir, key))
	if err != nil {
		if decider.Code(err) == decider.ErrAbsent {
			start(pc, prog, dir, key, report)
		} else {
			report(fmt.Sprintf("the policy decider is not used: %v; the call goes to logbook-policy hook", err))
		}
		return 0, false, nil, false
	}
	req := decider.Request{Key: key, Cwd: cwd, Args: pc.args, Env: os.Environ(), Stdin: !pc.inArgs}
	if req.Stdin {
		if req.Payload, err = bigbuf.ReadStream(stdin); err != nil {
			conn.Close()
			report(fmt.Sprintf("read stdin: %v", err))
			return 0, false, req.Payload, true
		}
	}
	ans, err := conn.Ask(&req, askTimeout)
	if err != nil {
		msg := fmt.Sprintf("the policy decider failed (%v): the call goes to logbook-policy hook", err)
		if decider.Code(err) == decider.ErrDied {
			msg += " (if the decider had recorded it, it is recorded twice)"
			start(pc, prog, dir, key, report)
		}
		report(msg)
		return 0, false, req.Payload, req.Stdin
	}
	_, _ = stdout.Write(ans.Stdout)
	_, _ = stderr.Write(ans.Stderr)
	return ans.Exit, true, nil, false
}

// start starts a decider for key unless one holds its lock.
func start(pc policyCall, prog, dir, key string, report func(string)) {
	if !decider.NeedStart(dir, key) {
		return
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	args := []string{"serve", "--policy", abs(pc.policy)}
	for _, k := range pc.keys {
		args = append(args, "--policy-key", abs(k))
	}
	args = append(args, "--policy-fail", pc.failMode, "--socket-dir", dir)
	if pc.require != "" {
		args = append(args, "--require-policy", pc.require)
	}
	if err := startDecider(prog, args, os.Environ()); err != nil {
		report(fmt.Sprintf("cannot start the policy decider (%v): each call goes to logbook-policy hook", err))
	}
}

// beside is the program name built beside record-step.
func beside(name string) (string, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(exe), name), nil
}

// execHookReal runs prog in this process's place; it returns only when
// that fails. When stdin was read already, the payload is given to the
// hook as its stdin from an unlinked temporary file.
func execHookReal(prog string, args []string, payload []byte, consumed bool) error {
	var stdin *os.File
	if consumed {
		f, err := os.CreateTemp("", "logbook-payload-")
		if err != nil {
			return err
		}
		os.Remove(f.Name())
		if _, err := f.Write(payload); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		stdin = f
	}
	return replaceProcess(prog, args, stdin)
}
