package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookCommands reads the command each event runs in the ready-to-merge
// hooks block, exactly as Claude Code would run it.
func hookCommands(t *testing.T) map[string]string {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "hooks", "claude-code", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for ev, entries := range cfg.Hooks {
		out[ev] = entries[0].Hooks[0].Command
	}
	return out
}

// TestCIAgentThenSeal is the path "an agent ran in CI with hooks, a later
// step seals and verifies". Job 1 opens the session with the action, runs
// a real Claude Code session's hook events through the hooks block's own
// command lines (no signing key anywhere in the job: the SessionEnd hook
// records its event and leaves the seal), wraps one more command, and
// uploads the in-progress files. Job 2, in a fresh checkout, downloads
// them and runs the action's seal: every session is sealed and verified
// against the committed key. A record tampered afterwards, or an
// in-progress file edited between the jobs, fails the job.
func TestCIAgentThenSeal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	home := t.TempDir()
	// The hooks look for the commands in $CLAUDE_PROJECT_DIR/.logbook/bin.
	binDir := filepath.Join(w.dir, ".logbook", "bin")
	copyBin(t, binDir)
	r := newGHRunner(t, w, "LOGBOOK_BIN="+binDir, "HOME="+home)
	r.action(nil)
	if r.failed {
		t.Fatal("start failed")
	}

	s := synthSession(t, "subagent")
	cmds := hookCommands(t)
	var script strings.Builder
	payloads := t.TempDir()
	for i, ev := range s.events {
		name := head(ev).Event
		cmd, ok := cmds[name]
		if !ok {
			t.Fatalf("no hook for %s", name)
		}
		p := filepath.Join(payloads, fmt.Sprintf("%04d", i))
		os.WriteFile(p, ev, 0o600)
		script.WriteString("LOGBOOK_NOW=" + s.at(i) + " CLAUDE_PROJECT_DIR=\"$GITHUB_WORKSPACE\" sh -c '" + strings.ReplaceAll(cmd, "'", `'\''`) + "' < " + p + " 2>>\"$RUNNER_TEMP/hooks.err\"\n")
	}
	if code, out := r.run("claude -p (hooks)", script.String(), nil); code != 0 || out != "" {
		t.Fatalf("hooks: exit %d, stdout %q (a hook prints nothing there)", code, out)
	}
	// The one complaint: the SessionEnd hook found no key to seal with.
	if e, _ := os.ReadFile(filepath.Join(r.temp, "hooks.err")); strings.Count(string(e), "\n") != 1 || !strings.HasPrefix(string(e), "logbook-seal: session ") || !strings.Contains(string(e), "NOT SEALED: no signing key") {
		t.Errorf("hooks' stderr %q", e)
	}
	r.run("lint", "logbook-wrap --agent golangci-lint -- sh -c 'echo lint ok'", nil)
	agentSession := head(s.events[0]).Session
	if log, _ := os.ReadFile(filepath.Join(w.dir, ".logbook", "errors.log")); !bytes.Contains(log, []byte("no signing key")) {
		t.Errorf("the SessionEnd hook should have left the seal for later: errors.log %q", log)
	}
	// actions/upload-artifact of the in-progress files.
	artifact := t.TempDir()
	sessions, _ := filepath.Glob(filepath.Join(w.dir, ".logbook", "*.steps.jsonl"))
	if len(sessions) != 2 {
		t.Fatalf("sessions %v", sessions)
	}
	for _, f := range sessions {
		copyFile(t, f, filepath.Join(artifact, filepath.Base(f)))
	}

	// Job 2: a fresh checkout with the committed key, the artifact
	// downloaded into .logbook, the action's seal.
	sealJob := func(edit func(dir string)) (*ghRunner, *ciWorkspace, string) {
		w2 := newWorkspace(t)
		copyFile(t, filepath.Join(w.dir, "logbook.pub"), filepath.Join(w2.dir, "logbook.pub"))
		for _, f := range sessions {
			copyFile(t, filepath.Join(artifact, filepath.Base(f)), filepath.Join(w2.dir, ".logbook", filepath.Base(f)))
		}
		if edit != nil {
			edit(filepath.Join(w2.dir, ".logbook"))
		}
		r2 := newGHRunner(t, w2, "HOME="+home)
		os.Rename(w2.bin, filepath.Join(r2.temp, "logbook-bin")) // the runner's tool cache
		out := r2.action(map[string]string{"mode": "seal", "pubkey": "logbook.pub", "signing-key": w.key, "goal": "fix the flaky test"})
		return r2, w2, out
	}
	r2, w2, out := sealJob(nil)
	if r2.failed || !strings.Contains(out, "2 record(s) verified against logbook.pub") {
		t.Fatalf("seal job failed=%v:\n%s", r2.failed, out)
	}
	rec := filepath.Join(w2.dir, ".logbook", agentSession+".record.json")
	v := verify(t, rec, filepath.Join(w2.dir, "logbook.pub"))
	if !v.OK || *v.StepCount < int64(len(s.events)) {
		t.Fatalf("agent record: %+v", v)
	}
	got := readRecord(t, rec)
	if got.Session["goal"] != "fix the flaky test" || !strings.HasPrefix(got.Session["agent"].(string), "claude-code") {
		t.Errorf("session %v", got.Session)
	}
	if ev := got.Steps[len(s.events)-1].Data["event"]; ev != "SessionEnd" {
		t.Errorf("the last event recorded is %v, want SessionEnd", ev)
	}
	if _, ok := artifactHas(r2, agentSession+".record.json"); !ok {
		t.Errorf("the record was not uploaded: %v", r2.uploaded)
	}

	// A record tampered after the seal: the verify step fails.
	b, _ := os.ReadFile(rec)
	os.WriteFile(rec, bytes.Replace(b, []byte(`"kind":"read"`), []byte(`"kind":"edit"`), 1), 0o644)
	code, vout := shell(t, w2.dir, baseEnv("LOGBOOK_BIN="+filepath.Join(r2.temp, "logbook-bin"), "LOGBOOK_DIR=.logbook", "LOGBOOK_PUBKEY=logbook.pub"),
		[]string{"sh"}, `"$LOGBOOK_BIN/seal-and-verify.sh" verify`)
	if code != 1 || !strings.Contains(vout, "REFUSED CHAIN_BROKEN") {
		t.Errorf("tampered record: exit %d\n%s", code, vout)
	}

	// An in-progress file edited between the jobs (a step's summary
	// changed): the seal refuses it and the job fails.
	r3, _, out := sealJob(func(dir string) {
		p := filepath.Join(dir, agentSession+".steps.jsonl")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, bytes.Replace(b, []byte(`"kind":"read"`), []byte(`"kind":"note"`), 1), 0o600)
	})
	if !r3.failed || !strings.Contains(out, "hash does not recompute") || !strings.Contains(out, "NOT sealed") {
		t.Errorf("edited in-progress file: failed=%v\n%s", r3.failed, out)
	}
}

func artifactHas(r *ghRunner, name string) (string, bool) {
	for _, u := range r.uploaded {
		if u == name {
			return u, true
		}
	}
	return "", false
}
