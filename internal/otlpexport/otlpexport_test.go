package otlpexport_test

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/logbook-project/logbook/internal/otlpexport"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// receiver is an OTLP/HTTP traces receiver on 127.0.0.1: it decodes each
// protobuf ExportTraceServiceRequest and keeps its spans.
type receiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	attrs map[string]string // resource attributes
	bad   []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	var req coltrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &req)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		rc.bad = append(rc.bad, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+errString(err))
		http.Error(w, "bad request", 400)
		return
	}
	for _, rs := range req.ResourceSpans {
		if rc.attrs == nil {
			rc.attrs = map[string]string{}
		}
		for _, a := range rs.Resource.GetAttributes() {
			rc.attrs[a.Key] = a.Value.GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestExport(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc) // listens on 127.0.0.1
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("receiver at %s", srv.URL)
	}
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	n, err := otlpexport.Export(context.Background(), srv.URL+"/v1/traces", r)
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bad) > 0 {
		t.Fatalf("bad requests: %v", rc.bad)
	}
	// root + 3 turn groups + 1 sub-agent + 9 calls
	if n != 14 || len(rc.spans) != n {
		t.Fatalf("sent %d, received %d spans", n, len(rc.spans))
	}
	if rc.attrs["service.name"] != "logbook" || rc.attrs["logbook.session.id"] != "s1" {
		t.Errorf("resource %v", rc.attrs)
	}
	byName := map[string]*tracepb.Span{}
	ids := map[string]bool{}
	for _, s := range rc.spans {
		byName[s.Name] = s
		ids[string(s.SpanId)] = true
		if string(s.TraceId) != string(rc.spans[0].TraceId) {
			t.Errorf("span %s in another trace", s.Name)
		}
	}
	if len(ids) != n {
		t.Errorf("%d distinct span ids for %d spans", len(ids), n)
	}
	// OpenTelemetry GenAI semantic conventions: the session and the
	// sub-agent are invoke_agent spans, each call an execute_tool span.
	root, sub, fail := byName["invoke_agent claude-code"], byName["invoke_agent Explore"], byName["execute_tool Bash"]
	if root == nil || sub == nil || fail == nil || root.ParentSpanId != nil {
		t.Fatalf("spans: %v", byName)
	}
	for _, c := range []struct {
		s         *tracepb.Span
		key, want string
	}{
		{root, "gen_ai.operation.name", "invoke_agent"}, {root, "gen_ai.agent.name", "claude-code"},
		{root, "gen_ai.provider.name", "anthropic"}, {root, "gen_ai.conversation.id", "s1"},
		{sub, "gen_ai.operation.name", "invoke_agent"}, {sub, "gen_ai.agent.id", "ag1"}, {sub, "gen_ai.agent.name", "Explore"},
		{sub, "gen_ai.conversation.id", "s1"},
	} {
		if got := attr(c.s, c.key); got != c.want {
			t.Errorf("%s %s = %q, want %q", c.s.Name, c.key, got, c.want)
		}
	}
	var read *tracepb.Span
	calls := 0
	for _, s := range rc.spans {
		if strings.HasPrefix(s.Name, "execute_tool") {
			calls++
			if attr(s, "gen_ai.operation.name") != "execute_tool" || s.Name != "execute_tool "+attr(s, "gen_ai.tool.name") ||
				attr(s, "gen_ai.conversation.id") != "s1" || attr(s, "gen_ai.tool.type") != "function" || s.Kind != tracepb.Span_SPAN_KIND_INTERNAL {
				t.Errorf("execute_tool span %s: %v", s.Name, s.Attributes)
			}
		}
		if s.Name == "execute_tool Read" && attr(s, "gen_ai.tool.call.id") == "t-read" {
			read = s
		}
		if attr(s, "gen_ai.tool.call.id") == "t-fail" {
			fail = s
		}
	}
	if calls != 9 {
		t.Errorf("%d execute_tool spans, want 9", calls)
	}
	if read == nil || string(read.ParentSpanId) != string(sub.SpanId) || attr(read, "gen_ai.agent.id") != "ag1" {
		t.Error("the sub-agent's call is not its child")
	}
	if fail.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attr(fail, "logbook.subject") != "make lint" || attr(fail, "error.type") != "exit_2" {
		t.Errorf("failed call: %v", fail)
	}
	if got := fail.EndTimeUnixNano - fail.StartTimeUnixNano; got != 1e9 {
		t.Errorf("failed call lasted %d ns", got)
	}
	if attr(root, "logbook.record.id") != r.Verdict.RecordID {
		t.Error("root span lacks the record id")
	}
}

func attr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.GetStringValue()
		}
	}
	return ""
}

// TestRecordStepHasNoOTel: the hook binary, run on every tool call, must
// not link the OpenTelemetry SDK.
func TestRecordStepHasNoOTel(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/record-step").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "go.opentelemetry.io") || strings.Contains(string(out), "internal/otlpexport") {
		t.Fatal("record-step imports OpenTelemetry")
	}
}
