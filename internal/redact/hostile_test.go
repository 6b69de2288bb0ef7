package redact

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user and system time this process has used so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHostileInputIsLinear guards record-step against a command built to
// make the scanner rescan: each input repeats one unit to 400 kB. A linear
// scan takes milliseconds; a quadratic one would take minutes. It counts
// the process's CPU time, not the wall clock: on a loaded machine (CI, two
// cores shared) the wall clock measures the neighbours.
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
		start := cpuTime(t)
		String(s)
		if d := cpuTime(t) - start; d > 2*time.Second {
			t.Errorf("%q repeated to %d bytes: %v", unit, len(s), d)
		}
	}
}
