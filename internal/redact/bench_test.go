package redact

import (
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
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

// coldFirstCall runs a fresh copy of the test binary and returns how long
// its first String call took on a 200-byte command ("clean" or "secret").
func coldFirstCall(tb testing.TB, which string) time.Duration {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestColdStart$")
	cmd.Env = append(os.Environ(), coldEnv+"="+which)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("child: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "cold-ns ")
	if !ok {
		tb.Fatalf("child printed no timing:\n%s", out)
	}
	f, _, _ := strings.Cut(after, "\n")
	ns, err := strconv.ParseInt(f, 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ns)
}

// TestColdStart measures what record-step pays: the first String call in
// a fresh process, set-up included, on a 200-byte command. Each of several
// child processes times its first call; the median must stay under 1 ms.
func TestColdStart(t *testing.T) {
	if which := os.Getenv(coldEnv); which != "" {
		s := cleanCommand
		if which == "secret" {
			s = secretCommand
		}
		start := time.Now()
		String(s)
		d := time.Since(start)
		os.Stdout.WriteString("cold-ns " + strconv.FormatInt(d.Nanoseconds(), 10) + "\n")
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, which := range []string{"clean", "secret"} {
		var runs []time.Duration
		for range 7 {
			runs = append(runs, coldFirstCall(t, which))
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
		median := runs[len(runs)/2]
		t.Logf("first call in a fresh process (%s 200-byte command): median %v, min %v, max %v", which, median, runs[0], runs[len(runs)-1])
		// A command that holds a secret also compiles the few gitleaks
		// rules its words select (each 20-200 µs, once per process).
		limit := time.Millisecond
		if which == "secret" {
			limit = 3 * time.Millisecond
		}
		if median > limit {
			t.Errorf("cold first call takes %v, want < %v", median, limit)
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
				total += coldFirstCall(b, which)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "first-call-ns")
		})
	}
}
