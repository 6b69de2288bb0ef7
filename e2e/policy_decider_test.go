//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
)

// deciderHook runs record-step (in exe's directory) as a harness would,
// with the decider's socket directory socks; mode "off" is the exec'd
// hook only (LOGBOOK_POLICYD=off).
func deciderHook(t *testing.T, exe, data, socks, mode, at string, payload []byte, args ...string) hookRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(exe, "record-step"), args...)
	cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+data, "LOGBOOK_CACHE_DIR="+filepath.Join(socks, "..", "cache"),
		"LOGBOOK_POLICYD_DIR="+socks, "LOGBOOK_POLICYD="+mode)
	if at != "" {
		cmd.Env = append(cmd.Env, "LOGBOOK_NOW="+at)
	}
	cmd.Stdin = bytes.NewReader(payload)
	os.MkdirAll(data, 0o700)
	cmd.Dir = data // a relative --dir is below it
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// shortTemp is a temporary directory with a short name (a socket's path
// is at most 107 bytes).
func shortTemp(t *testing.T) string {
	d, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	reapDeciders(t, d)
	return d
}

// stopDeciders ends the deciders serving in socks when the test ends.
func stopDeciders(t *testing.T, socks string) {
	t.Cleanup(func() {
		m, _ := filepath.Glob(filepath.Join(socks, "*.sock"))
		for _, s := range m {
			if c, err := decider.Connect(s); err == nil {
				if st, err := c.Status(time.Second); err == nil {
					syscall.Kill(int(st.Pid), syscall.SIGTERM)
				}
			}
		}
	})
}

// TestPolicyDeciderSameBytes: the same calls, decided by the exec'd hook
// (LOGBOOK_POLICYD=off) and by the warm decider, give the same exit
// status, stdout and stderr, and journals equal byte for byte: the gate
// steps (decision, rule, reason, policy identity), the events and the
// session header (logbook-policy as the recorder) alike.
func TestPolicyDeciderSameBytes(t *testing.T) {
	t.Parallel()
	root := shortTemp(t)
	signed, pub, _ := signedPolicy(t, root, orgPolicy)
	socks := filepath.Join(root, "pd")
	stopDeciders(t, socks)
	gate := []string{"--policy", signed, "--policy-key", pub}
	// Start the decider with a call of another session, and wait for it.
	deciderHook(t, bin, filepath.Join(root, "warm"), socks, "", "", policyEvent("PreToolUse", "Bash", "w", `{"command":"ls"}`), gate...)
	before := waitDecider(t, socks)
	calls := []struct {
		payload []byte
		args    []string
	}{
		{policyEvent("PreToolUse", "Bash", "t1", `{"command":"rm -rf build"}`), nil},
		{policyEvent("PreToolUse", "Read", "t2", `{"file_path":"/w/.env"}`), []string{"--harness", "gemini"}},
		{policyEvent("PreToolUse", "Bash", "t3", `{"command":"ls"}`), nil},
		{policyEvent("PostToolUse", "Bash", "t3", `{"command":"ls"}`), nil},
		{[]byte(`{"session_id":"gated","cwd":"/w","hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/w/prod.env","content":"x"}}`), nil},
		{[]byte(`{"session_id":"gated","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":`), nil}, // cut off
		{[]byte(`{"session_id":"gated","cwd":"/w","hook_event_name":"Stop"}`), []string{"--fail-closed"}},
		// Codex's notify program: the payload is the last argument.
		{nil, []string{"--harness", "codex", `{"type":"agent-turn-complete","thread-id":"gated","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}`}},
		// A relative --dir: the caller's working directory, not the decider's.
		{policyEvent("PreToolUse", "Bash", "t9", `{"command":"rm -rf x"}`), []string{"--dir", "rel"}},
	}
	viaExec, viaDecider := filepath.Join(root, "exec"), filepath.Join(root, "decider")
	for i, c := range calls {
		at := fmt.Sprintf("2026-05-01T10:00:%02d.000000000Z", i)
		args := append(append([]string{}, gate...), c.args...)
		a := deciderHook(t, bin, viaExec, socks, "off", at, c.payload, args...)
		b := deciderHook(t, bin, viaDecider, socks, "", at, c.payload, args...)
		if a != b {
			t.Errorf("call %d: exec'd hook %+v, decider %+v", i, a, b)
		}
	}
	after := waitDecider(t, socks)
	if after.Pid != before.Pid || after.Served-before.Served != uint64(len(calls)) {
		t.Errorf("the decider did not answer every call: %+v then %+v", before, after)
	}
	// Every file the two wrote, byte for byte (errors.log's lines may
	// name the session directory, which differs).
	files := func(d string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() && !strings.HasSuffix(p, ".lock") {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(d, p)
				m[rel] = bytes.ReplaceAll(b, []byte(d), nil)
			}
			return nil
		})
		return m
	}
	x, y := files(viaExec), files(viaDecider)
	for _, want := range []string{"gated.steps.jsonl", "errors.log", "rel/gated.steps.jsonl"} {
		if x[want] == nil {
			t.Errorf("the exec'd hook wrote no %s", want)
		}
	}
	for name := range y {
		if x[name] == nil {
			t.Errorf("only the decider wrote %s", name)
		}
	}
	for name, b := range x {
		if !bytes.Equal(b, y[name]) {
			t.Errorf("%s differs:\nexec'd hook:\n%s\ndecider:\n%s", name, b, y[name])
		}
	}
	j, _ := os.ReadFile(filepath.Join(viaDecider, "gated.steps.jsonl"))
	if n := bytes.Count(j, []byte(`"summary":"policy `)); n != 4 {
		t.Errorf("%d gate steps, want 4 (three PreToolUse, one PermissionRequest):\n%s", n, j)
	}
}

// TestPolicyDeciderParallel: 32 hooks at once, no decider yet: the first
// calls are exec'd, one decider serves (however many hooks tried to
// start one), every call is decided and recorded once, and the sealed
// record verifies under the policy's key.
func TestPolicyDeciderParallel(t *testing.T) {
	t.Parallel()
	root := shortTemp(t)
	signed, pub, digest := signedPolicy(t, root, orgPolicy)
	socks, data := filepath.Join(root, "pd"), filepath.Join(root, "data")
	stopDeciders(t, socks)
	gate := []string{"--policy", signed, "--policy-key", pub}
	const sessions, calls = 4, 8
	var wg sync.WaitGroup
	results := make([]hookRun, sessions*calls)
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				cmd := `ls`
				if i%4 == 3 {
					cmd = `rm -rf /`
				}
				p := []byte(fmt.Sprintf(`{"session_id":"par%d","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":%q}}`, s, i, cmd))
				results[s*calls+i] = deciderHook(t, bin, data, socks, "", "", p, gate...)
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		denied := i%calls%4 == 3
		if r.exit != 0 || denied != strings.Contains(r.stdout, `"permissionDecision":"deny"`) || r.stderr != "" {
			t.Errorf("call %d: %+v", i, r)
		}
	}
	st := waitDecider(t, socks)
	if st.Served == 0 {
		t.Errorf("the decider answered no call: %+v", st)
	}
	// One decider: one socket, and one serve process for this directory.
	time.Sleep(300 * time.Millisecond) // losers of the lock leave at once
	if n := servers(t, socks); n != 1 {
		t.Errorf("%d deciders serve %s, want 1", n, socks)
	}
	key := filepath.Join(root, "seal.key")
	run(t, nil, "logbook-seal", "--new-key", key)
	for s := range sessions {
		j, _ := os.ReadFile(filepath.Join(data, fmt.Sprintf("par%d.steps.jsonl", s)))
		if g := bytes.Count(j, []byte(`"summary":"policy `)); g != calls {
			t.Errorf("session par%d: %d gate steps, want %d", s, g, calls)
		}
		rec := filepath.Join(root, fmt.Sprintf("par%d.json", s))
		run(t, nil, "logbook-seal", "--dir", data, "--session", fmt.Sprintf("par%d", s), "--key", key, "--out", rec)
		if out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec); code != 0 {
			t.Errorf("verify par%d: %d %s", s, code, out)
		}
	}
}

// servers counts the live logbook-policy serve processes whose command
// line names socks.
func servers(t *testing.T, socks string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		a := strings.Split(string(b), "\x00")
		if len(a) > 1 && a[1] == "serve" && strings.Contains(string(b), "\x00"+socks+"\x00") {
			st, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
			if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "Z" {
				continue
			}
			n++
		}
	}
	return n
}

// TestPolicyDeciderStale: a rebuilt logbook-policy (or another policy)
// gets a decider of its own; the old one is not asked and leaves.
func TestPolicyDeciderStale(t *testing.T) {
	t.Parallel()
	root := shortTemp(t)
	signed, pub, _ := signedPolicy(t, root, orgPolicy)
	socks, data, exe := filepath.Join(root, "pd"), filepath.Join(root, "data"), filepath.Join(root, "bin")
	stopDeciders(t, socks)
	os.Mkdir(exe, 0o755)
	install := func() {
		for _, name := range []string{"record-step", "logbook-policy"} {
			b, err := os.ReadFile(filepath.Join(bin, name))
			if err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(exe, name+".new")
			writeExe(tmp, b)
			os.Rename(tmp, filepath.Join(exe, name)) // a new file, as an upgrade writes it
		}
	}
	install()
	gate := []string{"--policy", signed, "--policy-key", pub}
	p := policyEvent("PreToolUse", "Bash", "t1", `{"command":"rm -rf x"}`)
	deciderHook(t, exe, data, socks, "", "", p, gate...)
	old := waitDecider(t, socks)
	install()
	r := deciderHook(t, exe, data, socks, "", "", p, gate...)
	if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || r.stderr != "" {
		t.Fatalf("after the upgrade: %+v", r)
	}
	// The old decider leaves by itself (its binary is gone); a new one
	// serves the new binary's key.
	deadline := time.Now().Add(15 * time.Second)
	for syscall.Kill(int(old.Pid), 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the old decider (pid %d) is still alive", old.Pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	st := waitDecider(t, socks)
	if st.Pid == old.Pid || st.Key == old.Key {
		t.Errorf("old %+v new %+v", old, st)
	}
	r = deciderHook(t, exe, data, socks, "", "", p, gate...)
	if after := waitDecider(t, socks); after.Served != st.Served+1 || !strings.Contains(r.stdout, "deny") {
		t.Errorf("the new decider did not answer: %+v then %+v, %+v", st, after, r)
	}
}

// TestPolicyDeciderSquat: another user (uid 64021) made the hook user's
// default socket directory first (TMPDIR/logbook-policy-65534, its own,
// mode 0777) and listens there under the right key, ready to allow
// everything. The hook (nobody) refuses the directory (DECIDER_INSECURE,
// on stderr and in errors.log), sends it nothing, and the exec'd hook
// still denies the call. Once the squatter's directory is gone, the hook
// makes its own (0700) and its decider serves. Needs root (as on CI).
func TestPolicyDeciderSquat(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the hook and the squatter as two other users")
	}
	const squatter, nobody = 64021, 65534
	root := shortTemp(t)
	os.Chmod(root, 0o755)
	signed, pub, _ := signedPolicy(t, root, orgPolicy)
	os.Chmod(signed, 0o644)
	os.Chmod(pub, 0o644)
	exe := filepath.Join(root, "bin")
	os.Mkdir(exe, 0o755)
	for _, name := range []string{"record-step", "logbook-policy"} {
		b, _ := os.ReadFile(filepath.Join(bin, name))
		writeExe(filepath.Join(exe, name), b)
	}
	tmp, data := filepath.Join(root, "tmp"), filepath.Join(root, "data")
	os.Mkdir(tmp, 0o777)
	os.Chmod(tmp, 0o1777)
	os.Mkdir(data, 0o700)
	os.Chown(data, nobody, nobody)
	squat := filepath.Join(tmp, fmt.Sprintf("logbook-policy-%d", nobody))
	os.Mkdir(squat, 0o777)
	os.Chmod(squat, 0o777)
	os.Chown(squat, squatter, squatter)
	id, _ := decider.StatIdentity(filepath.Join(exe, "logbook-policy"))
	pol, keys, _ := decider.Inputs(signed, []string{pub})
	key := decider.KeyOf(id, pol, keys, decider.Mode("deny", ""))
	l, err := net.Listen("unix", decider.Socket(squat, key))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chown(decider.Socket(squat, key), squatter, squatter)
	os.Chmod(decider.Socket(squat, key), 0o777)
	var asked atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			asked.Add(1)
			c.Write((&decider.Answer{Key: key}).Marshal()) // "allow": says nothing
			c.Close()
		}
	}()
	hook := func(id string) hookRun {
		cmd := exec.Command(filepath.Join(exe, "record-step"), "--policy", signed, "--policy-key", pub)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Dir = root
		cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "LOGBOOK_DIR=" + data, "LOGBOOK_CACHE_DIR=" + filepath.Join(data, "cache"), "HOME=" + data}
		cmd.Stdin = bytes.NewReader(policyEvent("PreToolUse", "Bash", id, `{"command":"rm -rf /"}`))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v %s", err, errb.String())
		}
		return hookRun{stdout: out.String(), stderr: errb.String()}
	}
	r := hook("t1")
	if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stderr, decider.ErrInsecure) || asked.Load() != 0 {
		t.Fatalf("squatted directory: %+v, squatter asked %d times", r, asked.Load())
	}
	if log, _ := os.ReadFile(filepath.Join(data, "errors.log")); !bytes.Contains(log, []byte(decider.ErrInsecure)) {
		t.Errorf("errors.log: %s", log)
	}
	l.Close()
	os.RemoveAll(squat)
	hook("t2") // makes the directory, starts the decider
	var st syscall.Stat_t
	if err := syscall.Lstat(squat, &st); err != nil || st.Uid != nobody || st.Mode&0o777 != 0o700 {
		t.Fatalf("the hook's own directory: %v uid %d mode %o", err, st.Uid, st.Mode&0o777)
	}
	deadline := time.Now().Add(20 * time.Second)
	for servers(t, squat) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("no decider serves the hook's own directory")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for syscall.Lstat(decider.Socket(squat, key), &st) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the hook's decider does not listen")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st.Uid != nobody || st.Mode&0o777 != 0o600 {
		t.Errorf("the decider's socket: uid %d mode %o", st.Uid, st.Mode&0o777)
	}
	r = hook("t3")
	if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || r.stderr != "" {
		t.Errorf("through the decider: %+v", r)
	}
	// The decider leaves once its binary is gone (the test's cleanup).
}

// TestPolicyHookTakesRecordStepFlags: record-step --policy hands all its
// arguments to logbook-policy hook (exec'd, or in the decider), so the
// hook must take every flag record-step has: one it did not know would
// make the hook line a broken one, which exits 0 and lets the call
// through ungated.
func TestPolicyHookTakesRecordStepFlags(t *testing.T) {
	t.Parallel()
	flags := func(argv ...string) map[string]bool {
		out, _ := exec.Command(filepath.Join(bin, argv[0]), argv[1:]...).CombinedOutput()
		m := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(l, "  -") {
				m[f[0]] = true
			}
		}
		return m
	}
	rs, hook := flags("record-step", "--help"), flags("logbook-policy", "hook", "--help")
	if len(rs) < 8 {
		t.Fatalf("record-step --help lists %d flags: %v", len(rs), rs)
	}
	for f := range rs {
		if !hook[f] {
			t.Errorf("record-step has %s, logbook-policy hook does not", f)
		}
	}
}

// TestPolicyDeciderPin: a decider loaded without --require-policy never
// answers a call that pins another digest: the pin is part of the
// decider's key, so that call finds no decider of its own and the exec'd
// hook denies it (--policy-fail deny); the right pin is allowed.
func TestPolicyDeciderPin(t *testing.T) {
	t.Parallel()
	root := shortTemp(t)
	signed, pub, digest := signedPolicy(t, root, orgPolicy)
	socks, data := filepath.Join(root, "pd"), filepath.Join(root, "data")
	stopDeciders(t, socks)
	gate := []string{"--policy", signed, "--policy-key", pub}
	ls := policyEvent("PreToolUse", "Bash", "p1", `{"command":"ls"}`)
	deciderHook(t, bin, data, socks, "", "", ls, gate...)
	waitDecider(t, socks)
	wrong := strings.Repeat("0", 64)
	r := deciderHook(t, bin, data, socks, "", "", ls, append(gate, "--require-policy", wrong)...)
	if !strings.Contains(r.stdout, "deny") || !strings.Contains(r.stdout+r.stderr, wrong) {
		t.Errorf("a call pinning another digest was not denied by the pin: %+v", r)
	}
	r = deciderHook(t, bin, data, socks, "", "", ls, append(gate, "--require-policy", digest)...)
	if strings.Contains(r.stdout, "deny") || r.exit != 0 {
		t.Errorf("a call pinning the policy's own digest was not allowed: %+v", r)
	}
}
