package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRecordStepStaysLean: record-step runs on every tool call, so it
// links neither X.509 nor networking (the trust checks and the
// time-stamping client live in packages only the sealer and the verifier
// import).
func TestRecordStepStaysLean(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "../cmd/record-step").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "crypto/x509" || dep == "net" || strings.HasPrefix(dep, "net/") || strings.Contains(dep, "digitorus") {
			t.Errorf("record-step depends on %s", dep)
		}
	}
}
