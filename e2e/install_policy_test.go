package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallPolicyHooks: record-step install --policy writes hooks that,
// run as Claude Code runs them (sh -c in the project, with the built
// binaries install copied), deny a call the organization policy denies
// with Claude Code's answer, let an allowed one through, and leave a
// record that logbook-verify --policy-key --require-policy accepts.
func TestInstallPolicyHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	etc := filepath.Join(dir, "etc")
	os.MkdirAll(etc, 0o755)
	signed, pub, digest := signedPolicy(t, etc, orgPolicy)
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	home := filepath.Join(dir, "home")
	install := exec.Command(filepath.Join(bin, "record-step"), "install", "--harness", "claude-code", "--project", proj, "--bin", bin,
		"--no-key", "--no-guard", "--policy", signed, "--policy-key", pub, "--require-policy", digest)
	install.Env = append(os.Environ(), "HOME="+home)
	out, err := install.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "note: policy "+digest) {
		t.Fatalf("install: %v\n%s", err, out)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	data, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	hook := func(event string, payload []byte) hookRun {
		cmd := exec.Command("sh", "-c", cfg.Hooks[event][0].Hooks[0].Command)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+proj, "HOME="+home, "LOGBOOK_CACHE_DIR="+filepath.Join(dir, "cache"))
		cmd.Stdin = bytes.NewReader(payload)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		r := hookRun{stdout: o.String(), stderr: e.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.exit = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := hook("PreToolUse", policyEvent("PreToolUse", "Bash", "t1", `{"command":"rm -rf build"}`)); r.exit != 0 ||
		!strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "recursive force-remove") {
		t.Fatalf("rm -rf through the installed hook: %+v", r)
	}
	if r := hook("PreToolUse", policyEvent("PreToolUse", "Bash", "t2", `{"command":"ls"}`)); r.exit != 0 || r.stdout != "" {
		t.Fatalf("ls through the installed hook: %+v", r)
	}
	if r := hook("PostToolUse", policyEvent("PostToolUse", "Bash", "t2", `{"command":"ls"}`)); r.exit != 0 {
		t.Fatalf("PostToolUse: %+v", r)
	}
	key := filepath.Join(dir, "seal.key")
	run(t, nil, "logbook-seal", "--new-key", key)
	rec := filepath.Join(dir, "r.json")
	run(t, nil, "logbook-seal", "--dir", filepath.Join(proj, ".logbook"), "--session", "gated", "--key", key, "--out", rec)
	if out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec); code != 0 || !strings.Contains(out, " gated=2 denied=1") {
		t.Fatalf("verify --policy-key: %d %s", code, out)
	}
	// Without --policy-key the gate steps are named as not checked.
	if out, code := verifyArgs(t, rec); code != 0 || !strings.Contains(out, "gate step(s)") || !strings.Contains(out, "not checked: pass --policy-key") {
		t.Errorf("verify without --policy-key: %d %s", code, out)
	}
	// Another policy put in place, signed by the same key (an older,
	// laxer one, say): the pinned digest keeps it out of force, and every
	// gated call is denied until the pin or the file is put right.
	lax := filepath.Join(dir, "lax")
	os.MkdirAll(lax, 0o755)
	laxPolicy := strings.Replace(orgPolicy, `"name":"acme-default"`, `"name":"acme-lax"`, 1)
	src := filepath.Join(lax, "policy.json")
	os.WriteFile(src, []byte(laxPolicy), 0o644)
	run(t, nil, "logbook-policy", "sign", "--key", strings.TrimSuffix(pub, ".pub"), "--out", signed, src)
	if r := hook("PreToolUse", policyEvent("PreToolUse", "Bash", "t3", `{"command":"ls"}`)); r.exit != 0 ||
		!strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stderr, "--require-policy pins "+digest) {
		t.Errorf("another policy under the pin: %+v", r)
	}
}
