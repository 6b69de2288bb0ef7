package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/corpora"
)

// TestDemoScript runs the README's main command on the shortest session,
// so the command a new user runs first cannot rot: on the real one when
// the public transcripts are at hand, and on the synthesized one always;
// each run says which it replayed.
func TestDemoScript(t *testing.T) {
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
	}
}
