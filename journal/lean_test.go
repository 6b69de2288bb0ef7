package journal_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The recording half must stay lean: a hook runs on every tool call, and
// crypto/x509 or net would slow each start (docs/performance.md).
func TestLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "../wrap").Output()
	if err != nil {
		t.Skip("go list:", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "crypto/x509" || dep == "net" || strings.HasPrefix(dep, "net/") ||
			strings.HasSuffix(dep, "internal/record") || strings.HasSuffix(dep, "internal/seal") {
			t.Errorf("journal or wrap depends on %s", dep)
		}
	}
}
