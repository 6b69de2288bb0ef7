package redact

import (
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/redact/scan"
	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

// cpuTime is the user and system time this process has used so far.
func cpuTime(t *testing.T) time.Duration {
	d := ostest.CPUTime()
	if d == 0 {
		t.Fatal("the process's CPU time cannot be read")
	}
	return d
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
		// Many real findings: each one once made every later lookup longer.
		"api_key=AAAAAAAAAAAAAAAAAAAA ",
		"-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n",
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

// TestManySecretsIsLinear: a text of many secrets, each a finding, costs
// no more per byte than one of few. Each lookup once walked every finding
// so far: 2 MB of "api_key=AAAA… " took 10 s, and record-step would have
// held the agent past its hook timeout.
func TestManySecretsIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	s := strings.Repeat("api_key=AAAAAAAAAAAAAAAAAAAA ", 2_000_000/29)
	start := time.Now()
	out := String(s)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%d bytes of api_key=…: %v", len(s), d)
	}
	if strings.Contains(out, "AAAAAAAAAAAAAAAAAAAA") {
		t.Error("a secret survived")
	}
}

// TestReplaceManySpans: spans come in runs (the scanner's, then each
// gitleaks rule's from the start again); an insertion sort of two
// interleaved runs of 100,000 took seconds.
func TestReplaceManySpans(t *testing.T) {
	const n = 100_000
	s := strings.Repeat("ab", n)
	var spans []scan.Span
	for i := 0; i < n; i++ {
		spans = append(spans, scan.Span{Start: 2 * i, End: 2*i + 1})
	}
	for i := 0; i < n; i++ {
		spans = append(spans, scan.Span{Start: 2*i + 1, End: 2*i + 2})
	}
	start := time.Now()
	out := replace(s, spans)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("replace of %d spans: %v", len(spans), d)
	}
	if out != Mask {
		t.Errorf("touching spans over the whole text: %.40q…", out)
	}
}
