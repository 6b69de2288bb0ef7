package redact

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/redact/gitleaks"
)

// Typical clean commands of about 200 bytes. cleanNoMarkers is stopped by
// the prefilter; cleanCommand has '=', ':' and long words, so it goes
// through the whole scanner.
const (
	cleanNoMarkers = "cd ../web && npm ci && npm run lint -- --fix && npm test -- --runInBand src/components && git status --short && git diff --stat HEAD~1 | head -n 20 && ls -la dist/ build/ && du -sh node_modules && make -j4 all"
	cleanCommand   = "cd /home/dev/projects/spotter && bd list --status=open 2>/dev/null | head -20; mix test test/spotter_web/live/project_review_live_test.exs:42 --max-failures=1 2>&1 | tail -5; git log --oneline -3"
	secretCommand  = "cd /home/dev/projects/spotter && GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh api repos/acme/app/pulls --paginate -q '.[].number' | head -20; curl -H 'Authorization: Bearer abc123def456' https://x"
)

func BenchmarkStringNoMarkers(b *testing.B) { benchString(b, cleanNoMarkers) }
func BenchmarkStringClean(b *testing.B)     { benchString(b, cleanCommand) }
func BenchmarkStringSecret(b *testing.B)    { benchString(b, secretCommand) }

func benchString(b *testing.B, s string) {
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		String(s)
	}
}

// BenchmarkStringTranscripts is the mean cost over the real commands.
func BenchmarkStringTranscripts(b *testing.B) {
	commands, _, _ := sessionStrings(b)
	if len(commands) == 0 {
		b.Skip("no transcript corpus")
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range commands {
			String(c)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(commands)), "ns/command")
}

func BenchmarkSecretKey(b *testing.B) {
	for b.Loop() {
		SecretKey("X-Api-Key")
		SecretKey("command")
	}
}

// coldEnv makes the test binary, run again as a child, time one first call.
const coldEnv = "REDACT_COLD_START"

// cold is what a fresh process's first String call cost.
type cold struct {
	took     time.Duration
	compiles int    // gitleaks regular expressions compiled
	bytes    uint64 // bytes allocated, set-up included
}

// coldFirstCall runs a fresh copy of the test binary and returns what its
// first String call cost on a 200-byte command ("clean" or "secret").
func coldFirstCall(tb testing.TB, which string) cold {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestColdStart$")
	cmd.Env = append(os.Environ(), coldEnv+"="+which)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("child: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "cold ")
	if !ok {
		tb.Fatalf("child printed no figures:\n%s", out)
	}
	line, _, _ := strings.Cut(after, "\n")
	f := strings.Fields(line)
	if len(f) != 3 {
		tb.Fatalf("child printed %q", line)
	}
	var n [3]int64
	for i := range f {
		if n[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			tb.Fatal(err)
		}
	}
	return cold{time.Duration(n[0]), int(n[1]), uint64(n[2])}
}

// Limits on a fresh process's first String call, held as counts rather
// than times so a loaded machine cannot fail them. A clean command
// compiles no gitleaks rule; the secret one compiles the few its words
// select (each 20-200 µs of CPU, once per process). The bytes include the
// package's lazy set-up.
const (
	coldCompilesClean  = 0
	coldCompilesSecret = 4
	coldBytesClean     = 16 << 10
	coldBytesSecret    = 512 << 10
)

// TestColdStart holds down what record-step pays: the first String call
// in a fresh process, set-up included, on a 200-byte command. Its time is
// logged, not judged (BenchmarkColdStart measures it).
func TestColdStart(t *testing.T) {
	if which := os.Getenv(coldEnv); which != "" {
		s := cleanCommand
		if which == "secret" {
			s = secretCommand
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		String(s)
		d := time.Since(start)
		runtime.ReadMemStats(&m1)
		fmt.Fprintf(os.Stdout, "cold %d %d %d\n", d.Nanoseconds(), gitleaks.Compiles(), m1.TotalAlloc-m0.TotalAlloc)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, c := range []struct {
		which    string
		compiles int
		bytes    uint64
	}{{"clean", coldCompilesClean, coldBytesClean}, {"secret", coldCompilesSecret, coldBytesSecret}} {
		got := coldFirstCall(t, c.which)
		t.Logf("first call in a fresh process (%s 200-byte command): %v, %d rules compiled, %d bytes allocated", c.which, got.took, got.compiles, got.bytes)
		if got.compiles > c.compiles {
			t.Errorf("%s: the first call compiled %d gitleaks rules, want <= %d", c.which, got.compiles, c.compiles)
		}
		if got.bytes > c.bytes {
			t.Errorf("%s: the first call allocated %d bytes, want <= %d", c.which, got.bytes, c.bytes)
		}
	}
}

// BenchmarkColdStart reports, as first-call-ns, the mean cost of the
// first String call in a fresh process (one child process per iteration;
// ns/op is dominated by starting the process and means nothing here).
func BenchmarkColdStart(b *testing.B) {
	for _, which := range []string{"clean", "secret"} {
		b.Run(which, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				total += coldFirstCall(b, which).took
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "first-call-ns")
		})
	}
}
