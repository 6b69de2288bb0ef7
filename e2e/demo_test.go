package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDemoScript runs the README's main command on the shortest real
// session, so the command a new user runs first cannot rot.
func TestDemoScript(t *testing.T) {
	cmd := exec.Command("bash", "../scripts/demo.sh", "short")
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir()) // the demo keeps its files there
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	for _, want := range []string{"signer=pinned", "REFUSED CHAIN_BROKEN", "REFUSED SIGNATURE_INVALID", "REFUSED NOT_JSON", "REFUSED SIGNER_NOT_TRUSTED"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
