package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestDemoScript runs the README's main command on the shortest session,
// so the command a new user runs first cannot rot: on the real one when
// the public transcripts are at hand, and on the synthesized one always;
// each run says which it replayed.
func TestDemoScript(t *testing.T) {
	t.Parallel()
	_, real := corpora.Find("corpora/agent-sessions")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"short"}, map[bool]string{true: "a REAL recorded Claude Code session", false: "a SYNTHESIZED Claude Code session"}[real]},
		{[]string{"--synthesized", "short"}, "a SYNTHESIZED Claude Code session"},
	} {
		if testing.Short() && c.args[0] == "--synthesized" && !real {
			continue // the first run was synthesized already
		}
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("bash", append([]string{"../scripts/demo.sh"}, c.args...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir()) // the demo keeps its files there
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("demo.sh %v: %v\n%s", c.args, err, out)
			}
			for _, want := range []string{c.want, "signer=pinned", "REFUSED CHAIN_BROKEN", "REFUSED SIGNATURE_INVALID", "REFUSED NOT_JSON", "REFUSED SIGNER_NOT_TRUSTED"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("demo.sh %v output lacks %q:\n%s", c.args, want, out)
				}
			}
		})
	}
}

// TestDemoScriptUsage: --help prints the usage on stdout, exit 0; an
// unknown option or session is refused with exit 2 before the build
// (which takes a while), naming the sessions there are.
func TestDemoScriptUsage(t *testing.T) {
	t.Parallel()
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command("bash", append([]string{"../scripts/demo.sh"}, args...)...)
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	if out, _, code := run("--help"); code != 0 || !strings.Contains(out, "./scripts/demo.sh [--synthesized] [SESSION]") {
		t.Errorf("--help: exit %d, stdout %q", code, out)
	}
	for _, args := range [][]string{{"--bogus"}, {"--synthesized", "nosuch"}, {"short", "long"}} {
		out, errText, code := run(args...)
		if code != 2 || strings.Contains(out, "== build") || !strings.Contains(errText, "demo.sh: ") {
			t.Errorf("demo.sh %v: exit %d, stdout %q, stderr %q; want exit 2 before the build", args, code, out, errText)
		}
	}
	if _, errText, _ := run("--synthesized", "nosuch"); !strings.Contains(errText, "short, tool_heavy, subagent, long") {
		t.Errorf("an unknown session does not name the known ones: %q", errText)
	}
}
