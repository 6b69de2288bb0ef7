package redact_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// sampleEvents returns, for every real hook payload in the shared samples
// (samples/hooks/<harness>/*.json and each line of *.jsonl), the clear
// strings a step keeps: its summary and every string in its data. The
// samples hold no secret, so what hookevent returns redacted is what the
// redactor was given (bar strings over the 1,000-byte bound).
func sampleEvents(tb testing.TB) [][]string {
	tb.Helper()
	root := corpora.Require(tb, "samples/hooks", "real hook payloads")
	var payloads [][]byte
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".json":
			payloads = append(payloads, data)
		case ".jsonl":
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					payloads = append(payloads, append([]byte(nil), sc.Bytes()...))
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	var events [][]string
	for _, p := range payloads {
		ev, err := hookevent.Parse(bytes.TrimPrefix(p, []byte("\xEF\xBB\xBF")))
		if err != nil {
			continue
		}
		strs := []string{ev.Step.Summary}
		for _, m := range ev.Step.Data.Members {
			switch m.Key {
			case "rawDigests", "decodedDigests":
				continue
			}
			if m.Value.Kind == strictjson.String {
				strs = append(strs, m.Value.Str)
			}
		}
		events = append(events, strs)
	}
	if len(events) < 50 {
		tb.Fatalf("only %d sample events", len(events))
	}
	return events
}

// BenchmarkRedactSampleEvents is the redactor's cost per event on the real
// sample payloads, rules already compiled (a long-lived process such as
// logbook-wrap; record-step's first event is BenchmarkRedactSampleEventsCold).
func BenchmarkRedactSampleEvents(b *testing.B) {
	events := sampleEvents(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, ev := range events {
			for _, s := range ev {
				redact.String(s)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}

// coldSamplesEnv makes the test binary, run again as a child, time the
// redaction of one sample event as the first thing it does.
const coldSamplesEnv = "REDACT_COLD_SAMPLE"

// TestColdSampleChild is the child's half of BenchmarkRedactSampleEventsCold.
func TestColdSampleChild(t *testing.T) {
	which := os.Getenv(coldSamplesEnv)
	if which == "" {
		t.Skip("run by BenchmarkRedactSampleEventsCold")
	}
	i, _ := strconv.Atoi(which)
	ev := sampleEvents(t)[i]
	start := time.Now()
	for _, s := range ev {
		redact.String(s)
	}
	os.Stdout.WriteString("cold-ns " + strconv.FormatInt(time.Since(start).Nanoseconds(), 10) + "\n")
}

// BenchmarkRedactSampleEventsCold is what record-step pays: redacting one
// real event as the first event of a fresh process, lazy rule compilation
// included. Each iteration runs one child per sample event; it reports
// the median and the worst event (ns/op is process start-up, meaningless).
func BenchmarkRedactSampleEventsCold(b *testing.B) {
	n := len(sampleEvents(b))
	var all []time.Duration
	for b.Loop() {
		for i := 0; i < n; i++ {
			cmd := exec.Command(os.Args[0], "-test.run=^TestColdSampleChild$")
			cmd.Env = append(os.Environ(), coldSamplesEnv+"="+strconv.Itoa(i))
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("child: %v\n%s", err, out)
			}
			_, after, ok := strings.Cut(string(out), "cold-ns ")
			if !ok {
				b.Fatalf("child printed no timing:\n%s", out)
			}
			f, _, _ := strings.Cut(after, "\n")
			ns, _ := strconv.ParseInt(f, 10, 64)
			all = append(all, time.Duration(ns))
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(all[len(all)/2].Nanoseconds()), "median-first-event-ns")
	b.ReportMetric(float64(all[len(all)*9/10].Nanoseconds()), "p90-first-event-ns")
	b.ReportMetric(float64(all[len(all)-1].Nanoseconds()), "max-first-event-ns")
}
