package otlpexport_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/otlpexport"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/ostest"
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

// logReceiver is an OTLP/HTTP receiver on 127.0.0.1 for traces and logs:
// it decodes each protobuf request with the OTLP protobuf types.
type logReceiver struct {
	receiver
	logs []*logspb.LogRecord
	res  map[string]string // the logs' resource attributes
}

func (rc *logReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/logs" {
		rc.receiver.ServeHTTP(w, r)
		return
	}
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
	var req collogs.ExportLogsServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &req)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		rc.bad = append(rc.bad, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+errString(err))
		http.Error(w, "bad request", 400)
		return
	}
	for _, rl := range req.ResourceLogs {
		if rc.res == nil {
			rc.res = map[string]string{}
		}
		for _, a := range rl.Resource.GetAttributes() {
			rc.res[a.Key] = a.Value.GetStringValue()
		}
		for _, sl := range rl.ScopeLogs {
			rc.logs = append(rc.logs, sl.LogRecords...)
		}
	}
	out, _ := proto.Marshal(&collogs.ExportLogsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func logAttr(l *logspb.LogRecord, key string) *commonpb.AnyValue {
	for _, a := range l.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return nil
}

// TestExportLogs: with a logs endpoint, every step that is not a call's
// pre- or post-event arrives once as an OTLP log record, in the session's
// trace, under the span it belongs to (its turn, its sub-agent, the call a
// gate step decided), with gen_ai.* and logbook.* attributes.
func TestExportLogs(t *testing.T) {
	extra := append(append([]string{}, reviewtest.Session...),
		`{"session_id":"s1","cwd":"/w","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"SubagentStop","agent_id":"ag-gone","agent_type":"Plan"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"StopFailure","error":"rate_limit"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`)
	session, err := reviewtest.Record(extra)
	if err != nil {
		t.Fatal(err)
	}
	gated, err := os.ReadFile("../../testdata/gate/good_gated.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		rec   []byte
		gates int
	}{{"session", session, 0}, {"gated", gated, 3}} {
		t.Run(c.name, func(t *testing.T) {
			rc := &logReceiver{}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			r, err := review.FromRecord(c.rec, record.Verify(c.rec, record.Options{}), false)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Verdict.OK {
				t.Fatalf("record refused: %s", r.Verdict.Line)
			}
			sent, err := otlpexport.Send(context.Background(), otlpexport.Endpoints{Traces: srv.URL + "/v1/traces", Logs: srv.URL + "/v1/logs"}, r)
			if err != nil {
				t.Fatal(err)
			}
			rc.mu.Lock()
			locked := true
			defer func() {
				if locked {
					rc.mu.Unlock()
				}
			}()
			if len(rc.bad) > 0 {
				t.Fatalf("bad requests: %v", rc.bad)
			}
			// The non-call steps, from the record itself.
			_, steps, err := review.ReadRecord(c.rec)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int64]review.Step{}
			for _, st := range steps {
				if ph := gaps.PhaseOf(st.Event); ph != gaps.Pre && ph != gaps.Post {
					want[st.Seq] = st
				}
			}
			if sent.Logs != len(want) || len(rc.logs) != len(want) {
				t.Fatalf("sent %d, received %d log records; %d non-call steps", sent.Logs, len(rc.logs), len(want))
			}
			spans := map[string]*tracepb.Span{}
			for _, s := range rc.spans {
				spans[string(s.SpanId)] = s
			}
			if rc.res["service.name"] != "logbook" || rc.res["logbook.session.id"] != r.Session.ID {
				t.Errorf("logs' resource %v", rc.res)
			}
			seen := map[int64]int{}
			gates := 0
			for _, l := range rc.logs {
				seq := logAttr(l, "logbook.seq").GetIntValue()
				seen[seq]++
				st, ok := want[seq]
				if !ok {
					t.Errorf("log record of seq %d, a call's step", seq)
					continue
				}
				if l.Body.GetStringValue() != st.Summary || l.TimeUnixNano != uint64(when(t, st.At).UnixNano()) ||
					logAttr(l, "logbook.kind").GetStringValue() != st.Kind || logAttr(l, "logbook.event").GetStringValue() != st.Event ||
					logAttr(l, "gen_ai.conversation.id").GetStringValue() != r.Session.ID {
					t.Errorf("seq %d: %v", seq, l)
				}
				if string(l.TraceId) != string(rc.spans[0].TraceId) || l.Flags&0xff != 1 {
					t.Errorf("seq %d: trace %x flags %x, not the session's", seq, l.TraceId, l.Flags)
				}
				sp := spans[string(l.SpanId)]
				if sp == nil {
					t.Errorf("seq %d: span id %x names no span sent", seq, l.SpanId)
					continue
				}
				switch {
				case st.Gate != nil:
					gates++
					if l.EventName != "logbook.gate" || sp.Name != "execute_tool "+st.Tool || attr(sp, "gen_ai.tool.call.id") != st.ToolUseID ||
						logAttr(l, "gen_ai.tool.call.id").GetStringValue() != st.ToolUseID ||
						logAttr(l, "logbook.gate.decision").GetStringValue() != st.Gate.Decision {
						t.Errorf("gate seq %d under span %s: %v", seq, sp.Name, l)
					}
					if st.Gate.Decision == "deny" && l.SeverityNumber != logspb.SeverityNumber_SEVERITY_NUMBER_WARN {
						t.Errorf("deny at severity %v", l.SeverityNumber)
					}
				case st.Event == "UserPromptSubmit":
					if l.EventName != "logbook.prompt" || !strings.HasPrefix(sp.Name, "turn ") {
						t.Errorf("prompt seq %d under span %s", seq, sp.Name)
					}
				case st.Event == "SubagentStart" || (st.Event == "SubagentStop" && st.AgentID == "ag1"):
					if sp.Name != "invoke_agent Explore" || logAttr(l, "gen_ai.agent.id").GetStringValue() != "ag1" ||
						logAttr(l, "gen_ai.agent.name").GetStringValue() != "Explore" {
						t.Errorf("%s seq %d under span %s", st.Event, seq, sp.Name)
					}
				case st.Event == "StopFailure":
					if l.SeverityNumber != logspb.SeverityNumber_SEVERITY_NUMBER_ERROR {
						t.Errorf("StopFailure at severity %v", l.SeverityNumber)
					}
				}
			}
			for seq := range want {
				if seen[seq] != 1 {
					t.Errorf("seq %d (%s) arrived %d times", seq, want[seq].Event, seen[seq])
				}
			}
			if gates != c.gates {
				t.Errorf("%d gate records, want %d", gates, c.gates)
			}
			// Logs alone: the same span ids, no spans sent.
			rc.logs, rc.spans = nil, nil
			before := map[string]bool{}
			for id := range spans {
				before[id] = true
			}
			rc.mu.Unlock()
			s, err := otlpexport.Send(context.Background(), otlpexport.Endpoints{Logs: srv.URL + "/v1/logs"}, r)
			rc.mu.Lock()
			if err != nil || s.Spans != 0 || s.Logs != len(want) || len(rc.logs) != len(want) {
				t.Fatalf("logs alone: %+v %v, %d received", s, err, len(rc.logs))
			}
			for _, l := range rc.logs {
				if !before[string(l.SpanId)] || len(rc.spans) != 0 {
					t.Fatalf("logs alone name span %x", l.SpanId)
				}
			}
		})
	}
}

func when(t *testing.T, at string) time.Time {
	tm, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// BenchmarkSend: a 4,000-event session (1,000 calls, 2,000 notifications)
// sent as spans alone, and as spans with its non-call steps as log
// records, to a receiver on 127.0.0.1 that reads and drops the requests;
// side by side, so the ratio is the cost of the logs (docs/performance.md).
func BenchmarkSend(b *testing.B) {
	payloads := reviewtest.Repeat(2000)
	for i := 0; i < 2000; i++ {
		payloads = append(payloads, fmt.Sprintf(`{"session_id":"s1","cwd":"/w","hook_event_name":"Notification","message":"waiting %d","notification_type":"idle_prompt"}`, i))
	}
	rec, err := reviewtest.Record(payloads)
	if err != nil {
		b.Fatal(err)
	}
	r, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	for _, c := range []struct {
		name string
		e    otlpexport.Endpoints
	}{
		{"spans", otlpexport.Endpoints{Traces: srv.URL + "/v1/traces"}},
		{"spans+logs", otlpexport.Endpoints{Traces: srv.URL + "/v1/traces", Logs: srv.URL + "/v1/logs"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			// CPU time of the process (the receiver's included), not wall
			// time: the machine is shared.
			cpu := ostest.CPUTime
			start := cpu()
			for i := 0; i < b.N; i++ {
				s, err := otlpexport.Send(context.Background(), c.e, r)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(s.Spans+s.Logs), "items/op")
			}
			b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
