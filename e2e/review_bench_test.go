package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// BenchmarkReviewVsVerify: logbook-review (the text review, as a pipe
// gets it) and logbook-verify on the same 100,000-step record
// (reviewtest.Big: synth's "long" Claude Code session over and over),
// side by side. It reports each command's CPU time (user + system, the
// process's own rusage) and peak resident memory, review's CPU over
// verify's (target: at most 1.5) and review's peak memory over the file
// size (target: at most 2).
//
//	go test ./e2e -run '^$' -bench BenchmarkReviewVsVerify -benchtime 3x
func BenchmarkReviewVsVerify(b *testing.B) {
	rec, err := reviewtest.Big(100_000)
	if err != nil {
		b.Fatal(err)
	}
	reviewVsVerify(b, rec)
}

// BenchmarkReviewVsVerifyFleet is BenchmarkReviewVsVerify on the record
// a fleet's server writes (reviewtest.BigFleet: every step names its
// actor, 64 MB), where reading the actors once cost a second parse of
// the whole record (4.6 s to verify, 0.9 s with the actors read in the
// verifier's walk).
//
//	go test ./e2e -run '^$' -bench BenchmarkReviewVsVerifyFleet -benchtime 3x
func BenchmarkReviewVsVerifyFleet(b *testing.B) {
	rec, err := reviewtest.BigFleet(100_000)
	if err != nil {
		b.Fatal(err)
	}
	reviewVsVerify(b, rec)
}

// reviewVsVerify runs logbook-verify and logbook-review on rec, side by
// side, and reports their CPU and peak memory.
func reviewVsVerify(b *testing.B, rec []byte) {
	path := filepath.Join(b.TempDir(), "big.record.json")
	if err := os.WriteFile(path, rec, 0o644); err != nil {
		b.Fatal(err)
	}
	// GNU time reports the command's own peak: a child forked from this
	// process, which holds the record, would inherit its high-water mark
	// through exec (Linux keeps the larger ru_maxrss).
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("needs GNU time (/usr/bin/time) to measure peak memory")
	}
	out := filepath.Join(b.TempDir(), "usage")
	run := func(args ...string) (cpu time.Duration, rss float64) {
		cmd := exec.Command("/usr/bin/time", append([]string{"-o", out, "-f", "%U %S %M", filepath.Join(bin, args[0])}, args[1:]...)...)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v: %v", args, err)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			b.Fatal(err)
		}
		var user, sys float64
		var kib int64
		if _, err := fmt.Sscan(string(text), &user, &sys, &kib); err != nil {
			b.Fatalf("GNU time said %q: %v", text, err)
		}
		return time.Duration((user + sys) * float64(time.Second)), float64(kib) / 1024
	}
	var vCPU, rCPU time.Duration
	var vRSS, rRSS float64
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, m := run("logbook-verify", path)
		vCPU, vRSS = vCPU+c, max(vRSS, m)
		c, m = run("logbook-review", path)
		rCPU, rRSS = rCPU+c, max(rRSS, m)
	}
	b.StopTimer()
	mib := float64(len(rec)) / (1 << 20)
	b.ReportMetric(vCPU.Seconds()/float64(b.N), "verify-cpu-s")
	b.ReportMetric(rCPU.Seconds()/float64(b.N), "review-cpu-s")
	b.ReportMetric(rCPU.Seconds()/vCPU.Seconds(), "review/verify-cpu")
	b.ReportMetric(vRSS, "verify-peak-MiB")
	b.ReportMetric(rRSS, "review-peak-MiB")
	b.ReportMetric(rRSS/mib, "review-peak/file")
	b.ReportMetric(mib, "file-MiB")
}
