package reviewcmd

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// TestOTLPFlag: --otlp sends the session's spans to a receiver on
// 127.0.0.1 (the span layout is internal/otlpexport's test).
func TestOTLPFlag(t *testing.T) {
	var mu sync.Mutex
	spans, logs := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/logs" && r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/v1/logs" {
			var req collogs.ExportLogsServiceRequest
			if err := proto.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			mu.Lock()
			for _, rl := range req.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					logs += len(sl.LogRecords)
				}
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "application/x-protobuf")
			return
		}
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans += len(ss.Spans)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	rec, _ := reviewtest.Record(reviewtest.Session)
	p := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(p, rec, 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"--otlp", srv.URL + "/v1/traces", p}, &out, &errb, env(nil)); code != 0 {
		t.Fatalf("%d %s", code, errb.String())
	}
	mu.Lock()
	if spans != 14 || logs != 0 || !strings.HasPrefix(out.String(), "sent 14 spans (9 calls)") {
		t.Fatalf("%d spans, %d log records received; %s", spans, logs, out.String())
	}
	mu.Unlock()
	// --otlp-logs: the 7 steps that are not calls' (a session start, two
	// prompts, a sub-agent's start and stop, two stops), as log records.
	out.Reset()
	if code := run([]string{"--otlp", srv.URL + "/v1/traces", "--otlp-logs", srv.URL + "/v1/logs", p}, &out, &errb, env(nil)); code != 0 {
		t.Fatalf("%d %s", code, errb.String())
	}
	mu.Lock()
	if spans != 28 || logs != 7 || !strings.Contains(out.String(), "sent 7 log records (the steps that are not calls)") {
		t.Fatalf("%d spans, %d log records received; %s", spans, logs, out.String())
	}
	mu.Unlock()
	// A logs endpoint that refuses: exit 2, the flag named.
	errb.Reset()
	if code := run([]string{"--otlp-logs", srv.URL + "/nowhere", p}, &out, &errb, env(nil)); code != 2 || !strings.Contains(errb.String(), "--otlp-logs "+srv.URL+"/nowhere") {
		t.Fatalf("refusing logs endpoint: exit %d %s", code, errb.String())
	}
	// A receiver that is not there: an error, exit 2.
	srv.Close()
	if code := run([]string{"--otlp", srv.URL + "/v1/traces", p}, &out, &errb, env(nil)); code != 2 {
		t.Fatalf("no receiver: exit %d", code)
	}
}
