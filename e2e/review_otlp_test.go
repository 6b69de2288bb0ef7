package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// TestReviewOTLPHelper: logbook-review leaves the OpenTelemetry exporter
// out (its packages fault in 6.5 MiB at every start) and hands --otlp to
// logbook-review-otlp beside it, which sends the spans; without that
// executable, --otlp fails with a message naming it and nothing else
// changes.
func TestReviewOTLPHelper(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" && len(body) > 0 {
			posts.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	writeFile(t, path, rec)
	out := run(t, nil, "logbook-review", "--otlp", srv.URL+"/v1/traces", path)
	if !strings.Contains(out, "spans") || posts.Load() == 0 {
		t.Fatalf("--otlp through %s: %d requests, said %q", "logbook-review-otlp", posts.Load(), out)
	}

	// logbook-review alone, with no helper beside it or on PATH.
	alone := filepath.Join(t.TempDir(), "logbook-review")
	data, err := os.ReadFile(filepath.Join(bin, "logbook-review"))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeExe(alone, data); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "--otlp", srv.URL+"/v1/traces", path)
	cmd.Env = append(without(os.Environ(), "PATH"), "PATH="+t.TempDir())
	msg, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(msg), "logbook-review-otlp") {
		t.Fatalf("without the helper: exit %d (%v), said %q", code, err, msg)
	}
	cmd = exec.Command(alone, path)
	cmd.Env = append(without(os.Environ(), "PATH"), "PATH="+t.TempDir())
	if msg, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(msg), "OK recordId=") {
		t.Fatalf("without the helper, a review: %v %q", err, msg)
	}

	// A logbook-review-otlp that is logbook-review itself (a copy or a
	// link, a wrong install): it would run itself again for --otlp, a
	// chain of processes without end; it must refuse at once instead.
	if err := writeExe(filepath.Join(filepath.Dir(alone), "logbook-review-otlp"), data); err != nil {
		t.Fatal(err)
	}
	// The context only ends a regression's chain; nothing is timed.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd = exec.CommandContext(ctx, alone, "--otlp", srv.URL+"/v1/traces", path)
	cmd.Env = append(without(os.Environ(), "PATH"), "PATH="+t.TempDir())
	msg, err = cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(msg), "without the exporter") {
		t.Fatalf("a helper that is logbook-review: exit %d (%v), said %q", code, err, msg)
	}
}

// without drops the entries of the named variables (unset, not empty:
// an empty PAGER means no pager).
func without(env []string, names ...string) []string {
	var out []string
next:
	for _, e := range env {
		for _, n := range names {
			if strings.HasPrefix(e, n+"=") {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}
