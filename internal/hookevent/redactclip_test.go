package hookevent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/redact"
)

// TestRedactedBeforeShortened: a secret that straddles the 1,000-byte
// bound of a data value, or the 200-byte bound of the summary, is
// replaced whole; the cut comes after redaction, so no part of it is left.
func TestRedactedBeforeShortened(t *testing.T) {
	secret := "ghp_" + strings.Repeat("Ab1Cd2Ef3G", 4) // 44 bytes
	for _, at := range []int{150, 190, 980, 990, 996} {
		cmd := "echo " + strings.Repeat("x", at-5) + " " + secret + " && make"
		q, _ := json.Marshal(cmd)
		ev, err := Parse([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":` + string(q) + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ev.Step.Data.GetString("command")
		for _, s := range []string{got, ev.Step.Summary} {
			for k := 0; k+8 <= len(secret); k++ {
				if strings.Contains(s, secret[k:k+8]) {
					t.Fatalf("secret at byte %d: %q of it left in %q", at, secret[k:k+8], s[max(0, len(s)-80):])
				}
			}
		}
		if len(got) > maxField || len(ev.Step.Summary) > maxSummary {
			t.Errorf("bounds: data %d, summary %d bytes", len(got), len(ev.Step.Summary))
		}
		if at < 900 && !strings.Contains(got, redact.Mask) {
			t.Errorf("secret at byte %d: no mask in %q", at, got)
		}
	}
}
