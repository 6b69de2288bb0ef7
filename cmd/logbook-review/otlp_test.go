package main

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

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// TestOTLPFlag: --otlp sends the session's spans to a receiver on
// 127.0.0.1 (the span layout is internal/otlpexport's test).
func TestOTLPFlag(t *testing.T) {
	var mu sync.Mutex
	spans := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
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
	defer mu.Unlock()
	if spans != 14 || !strings.HasPrefix(out.String(), "sent 14 spans (9 calls)") {
		t.Fatalf("%d spans received; %s", spans, out.String())
	}
	// A receiver that is not there: an error, exit 2.
	srv.Close()
	if code := run([]string{"--otlp", srv.URL + "/v1/traces", p}, &out, &errb, env(nil)); code != 2 {
		t.Fatalf("no receiver: exit %d", code)
	}
}
