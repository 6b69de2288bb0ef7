package redact

import (
	"strings"
	"testing"
	"time"
)

// TestHostileInputIsLinear guards record-step against a command built to
// make the scanner rescan: each input repeats one unit to 400 kB. A linear
// scan takes milliseconds; a quadratic one would take minutes.
func TestHostileInputIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	units := []string{
		"sk-", "eyJ-", "ghp_", "AKIA", "M", "MTaaaaaaaaaaaaaaaaaaaaaaaa.", "eyJaaaaaaaaaaaa.eyJ",
		"token=", "pwd=", "a=", ":=", "x:", `"token":`, "token: ", "token: Bearer ",
		"Cookie: $X ", "Authorization: ", "Bearer ", "Basic ", "-----BEGIN X-----",
		"a://", "https://u:p", "@", "--token ", "-u a:", "password ", "'", `"`, `\"`, "env['TOKEN']",
		`Authorization:\ `, `Cookie:\ $X `, `X-Api-Key:\ a\ `, `token=a\ `, "token=$'", `token=$"\`,
		"https://u:p?@", "a://b:c#d@", "s://:'@x:", "@?",
		// gitleaks' rules: keywords, assignments, escapes, headers.
		"api_key=", "api_key = '", "secret: ", "%2B", "%0A-----BEGIN PRIVATE KEY-----", "curl -H 'Authorization: ",
		"curl -u a:", "hvs.", "ops_eyJ", "sk_live_", "<apiToken>", `setProperty("token", "`, "token := ",
	}
	for _, unit := range units {
		s := strings.Repeat(unit, 400_000/len(unit))
		start := time.Now()
		String(s)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q repeated to %d bytes: %v", unit, len(s), d)
		}
	}
}
