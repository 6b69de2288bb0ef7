package install

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// TestPolicyHookRuns runs the hook lines install --policy writes, as the
// harness runs them (sh -c, $CLAUDE_PROJECT_DIR set): the gated event's
// record-step gets --policy and --policy-key with the files' absolute
// paths, quoted (a space and a quote in the path survive); the other
// events' does not; and with record-step gone, the gated hook blocks the
// call (exit 2, the reason on stderr) while the others let the agent go
// on (exit 0).
func TestPolicyHookRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	bin := filepath.Join(dir, "bin")
	etc := filepath.Join(dir, "it's etc")
	for _, d := range []string{proj, bin, etc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args := filepath.Join(dir, "args")
	for _, b := range []string{"record-step", "logbook-seal", "logbook-policy"} {
		script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + args + "'\n"
		if err := os.WriteFile(filepath.Join(bin, b), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	privPEM, pubPEM, err := keys.Generate()
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := keys.ParsePrivateKeyPEM(privPEM)
	signed, _, err := orgpolicy.Sign([]byte(`{"version":"logbook/policy@0","name":"t","rules":[]}`), priv)
	if err != nil {
		t.Fatal(err)
	}
	pol, pub := filepath.Join(etc, "policy signed.json"), filepath.Join(etc, "org.key.pub")
	os.WriteFile(pol, signed, 0o644)
	os.WriteFile(pub, pubPEM, 0o644)
	var out, errb bytes.Buffer
	o := Options{Verb: "install", Harness: "claude-code", Project: proj, Bin: bin, NoKey: true, NoGuard: true, Policy: pol, PolicyKeys: []string{pub}}
	if code := Run(o, &out, &errb, func(string) string { return "" }, time.Now()); code != Done {
		t.Fatalf("install: exit %d\n%s%s", code, out.String(), errb.String())
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
	hook := func(event string) (int, string, []string) {
		cmd := exec.Command("sh", "-c", cfg.Hooks[event][0].Hooks[0].Command)
		cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+proj)
		cmd.Stdin = strings.NewReader("{}")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		os.Remove(args)
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(args)
		return code, stderr.String(), strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	want := []string{"--harness", "claude-code", "--policy", pol, "--policy-key", pub}
	for _, ev := range []string{"PreToolUse", "PermissionRequest"} {
		if code, _, got := hook(ev); code != 0 || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s hook: exit %d, record-step got %q, want %q", ev, code, got, want)
		}
	}
	if code, _, got := hook("PostToolUse"); code != 0 || strings.Join(got, "|") != "--harness|claude-code" {
		t.Errorf("PostToolUse hook: exit %d, record-step got %q", code, got)
	}
	// record-step gone (a clone without .logbook/bin): the gated call is
	// blocked, the rest go on.
	if err := os.Remove(filepath.Join(proj, ".logbook", "bin", "record-step")); err != nil {
		t.Fatal(err)
	}
	if code, stderr, _ := hook("PreToolUse"); code != 2 || !strings.Contains(stderr, "the organization policy cannot decide this call and it is blocked") {
		t.Errorf("PreToolUse without record-step: exit %d, %q", code, stderr)
	}
	if code, stderr, _ := hook("PostToolUse"); code != 0 || !strings.Contains(stderr, "is missing, so this event is not recorded") {
		t.Errorf("PostToolUse without record-step: exit %d, %q", code, stderr)
	}
}
