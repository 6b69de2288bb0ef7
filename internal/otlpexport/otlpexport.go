// Package otlpexport sends a reviewed session to an OpenTelemetry
// collector (or any OTLP/HTTP receiver: a SIEM's ingest, Jaeger, Tempo) as
// spans, through the OpenTelemetry Go SDK and its OTLP/HTTP exporter: one
// root span for the session, one span per turn, one per sub-agent and one
// per tool call, with the session's other events as span events. Trace and
// span ids derive from the record id (or the session id), so sending the
// same record twice gives the same ids and a receiver can drop the repeat.
//
// Spans follow the OpenTelemetry GenAI semantic conventions (semconv
// v1.37.0, status Development): the session is an invoke_agent span
// ("invoke_agent claude-code"), each sub-agent one too, each tool call an
// execute_tool span ("execute_tool Bash") with gen_ai.tool.name,
// gen_ai.tool.call.id and gen_ai.tool.type, and every span carries
// gen_ai.conversation.id (the session id), so GenAI views (Jaeger, Tempo,
// vendors' agent views) recognise them. logbook.* attributes keep what the
// conventions lack: digests, seqs, kinds, the verdict and level.
//
// With a logs endpoint, every step that is not a tool call's pre- or
// post-event (prompts, session start and end, notifications, compaction,
// sub-agent starts and stops, gate decisions, notes, errors) is also sent
// once as an OTLP log record, through the SDK's log provider and its
// OTLP/HTTP log exporter, correlated with the session's trace: each record
// carries the trace id and the id of the span it belongs to (its turn, its
// sub-agent, or for a gate step the call it decided).
//
// Only clear text the record already holds is sent (summaries, commands,
// paths, digests); no body is ever in a record, so none can leave here.
// The package is linked by logbook-review only: record-step, which runs on
// every tool call, never imports it.
package otlpexport

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/logbook-project/logbook/internal/review"
)

// Export sends r's spans to the OTLP/HTTP traces endpoint url (for
// example http://127.0.0.1:4318/v1/traces) and waits until they are sent.
// It returns the number of spans.
func Export(ctx context.Context, url string, r *review.Review) (int, error) {
	s, err := Send(ctx, Endpoints{Traces: url}, r)
	return s.Spans, err
}

// Endpoints are the OTLP/HTTP endpoints Send sends to; an empty one is
// not sent to.
type Endpoints struct {
	Traces string // e.g. http://127.0.0.1:4318/v1/traces
	Logs   string // e.g. http://127.0.0.1:4318/v1/logs
}

// Sent counts what Send sent.
type Sent struct {
	Spans int // spans, when a traces endpoint was given
	Logs  int // log records, when a logs endpoint was given
}

// logBatch is the most log records sent in one request.
const logBatch = 4096

// Send sends r's spans to e.Traces and its non-call steps as log records
// to e.Logs, and waits until they are sent. The span ids are the same
// whether or not the spans are sent, so logs sent alone still name the
// spans a later (or earlier) export of the same record sends.
func Send(ctx context.Context, e Endpoints, r *review.Review) (Sent, error) {
	var sent Sent
	var exp *otlptrace.Exporter
	var lexp *otlploghttp.Exporter
	var err error
	if e.Traces != "" {
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(e.Traces), otlptracehttp.WithTimeout(30*time.Second),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}))
		if err != nil {
			return sent, err
		}
		defer exp.Shutdown(context.Background())
	}
	if e.Logs != "" {
		lexp, err = otlploghttp.New(ctx, otlploghttp.WithEndpointURL(e.Logs), otlploghttp.WithTimeout(30*time.Second),
			otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}))
		if err != nil {
			return sent, err
		}
		defer lexp.Shutdown(context.Background())
	}
	seed := r.Verdict.RecordID
	if seed == "" {
		seed = "session:" + r.Session.ID
	}
	res := resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName("logbook"),
		attribute.String("logbook.session.id", r.Session.ID),
		attribute.String("logbook.session.agent", r.Session.Agent),
	)
	// The spans are gathered first and sent in one request, whose error is
	// returned: a batcher would drop spans from a full queue and report
	// failures only to the global error handler.
	var col collector
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSyncer(&col),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(newIDs(seed)),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
	)
	// The log records likewise, through a simple processor into a
	// collector, then sent in batches whose errors are returned.
	var lg log.Logger
	var lcol logCollector
	var lp *sdklog.LoggerProvider
	if lexp != nil {
		lp = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewSimpleProcessor(&lcol)))
		lg = lp.Logger("github.com/logbook-project/logbook/review")
	}
	em := &emitter{tr: tp.Tracer("github.com/logbook-project/logbook/review"), lg: lg, conv: semconv.GenAIConversationID(r.Session.ID), recordID: r.Verdict.RecordID}
	err = em.emit(ctx, r)
	if serr := tp.Shutdown(ctx); err == nil {
		err = serr
	}
	if lp != nil {
		if serr := lp.Shutdown(ctx); err == nil {
			err = serr
		}
	}
	if err != nil {
		return sent, err
	}
	if exp != nil {
		if err := exp.ExportSpans(ctx, col.spans); err != nil {
			return sent, err
		}
		sent.Spans = em.spans
	}
	if lexp != nil {
		for i := 0; i < len(lcol.records); i += logBatch {
			if err := lexp.Export(ctx, lcol.records[i:min(i+logBatch, len(lcol.records))]); err != nil {
				return sent, fmt.Errorf("logs: %v", err)
			}
		}
		sent.Logs = len(lcol.records)
	}
	return sent, nil
}

// logCollector keeps copies of the emitted log records.
type logCollector struct {
	mu      sync.Mutex
	records []sdklog.Record
}

func (c *logCollector) Export(_ context.Context, records []sdklog.Record) error {
	c.mu.Lock()
	for i := range records {
		c.records = append(c.records, records[i].Clone())
	}
	c.mu.Unlock()
	return nil
}

func (c *logCollector) Shutdown(context.Context) error   { return nil }
func (c *logCollector) ForceFlush(context.Context) error { return nil }

// collector keeps the ended spans.
type collector struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (c *collector) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	c.mu.Lock()
	c.spans = append(c.spans, spans...)
	c.mu.Unlock()
	return nil
}

func (c *collector) Shutdown(context.Context) error { return nil }

// emitter makes the spans, and the log records when lg is not nil.
type emitter struct {
	tr       trace.Tracer
	lg       log.Logger
	conv     attribute.KeyValue
	recordID string
	spans    int
}

func (em *emitter) emit(ctx context.Context, r *review.Review) error {
	tr, conv := em.tr, em.conv
	start, end := when(r.Summary.Start), when(r.Summary.End)
	// session.agent is the harness, perhaps with its version or model
	// after a space ("claude-code (claude-sonnet-4)"): the name is the
	// harness.
	agent, _, _ := strings.Cut(r.Session.Agent, " ")
	if agent == "" {
		agent = "agent"
	}
	rootAttrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentName(agent), conv,
	}
	if p, ok := providers[agent]; ok {
		rootAttrs = append(rootAttrs, p)
	}
	ctx, root := tr.Start(ctx, "invoke_agent "+agent, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(rootAttrs...), trace.WithAttributes(
		attribute.String("logbook.session.id", r.Session.ID),
		attribute.Bool("logbook.verified", r.Verdict.OK),
		attribute.String("logbook.state", r.Verdict.State),
		attribute.String("logbook.verdict", r.Verdict.Line),
		attribute.String("logbook.record.id", r.Verdict.RecordID),
		attribute.String("logbook.key.id", r.Verdict.KeyID),
		attribute.String("logbook.goal", r.Session.Goal),
		attribute.Int("logbook.steps", r.Summary.Steps),
		attribute.Int("logbook.calls", r.Summary.Calls),
		attribute.Int("logbook.gaps", r.Summary.Gaps.Total()),
	))
	if r.Verdict.Code != "" {
		root.SetAttributes(attribute.String("logbook.code", r.Verdict.Code))
	}
	if r.Verdict.Assurance != "" {
		root.SetAttributes(attribute.String("logbook.assurance", r.Verdict.Assurance))
	}
	if !r.Verdict.OK {
		root.SetStatus(codes.Error, r.Verdict.Line)
		root.SetAttributes(semconv.ErrorTypeKey.String("logbook.refused"))
	}
	for _, t := range r.Turns {
		name := "before the first prompt"
		ts := start
		// A turn has no GenAI operation of its own: it groups the
		// calls one prompt led to.
		attrs := []attribute.KeyValue{conv, attribute.Int("logbook.turn", t.Number)}
		if t.Prompt != nil {
			name = fmt.Sprintf("turn %d", t.Number)
			ts = when(t.Prompt.At)
			attrs = append(attrs, attribute.String("logbook.prompt.summary", t.Prompt.Summary),
				attribute.StringSlice("logbook.prompt.sha256", t.Prompt.Inputs()), attribute.Int64("logbook.seq", t.Prompt.Seq))
		}
		tctx, span := tr.Start(ctx, name, trace.WithTimestamp(ts), trace.WithAttributes(attrs...))
		if t.Prompt != nil {
			p := t.Prompt.Full()
			em.log(tctx, &p, t.Number, "", "")
		}
		last := em.items(tctx, t.Items, span, ts, t.Number)
		span.End(trace.WithTimestamp(last))
		em.spans++
	}
	root.End(trace.WithTimestamp(end))
	em.spans++
	return nil
}

// items emits calls and sub-agents as spans under parent and events as
// span events on it (and as log records); it returns the latest time
// seen.
func (em *emitter) items(ctx context.Context, list []review.Item, parent trace.Span, last time.Time, turn int) time.Time {
	tr, conv := em.tr, em.conv
	for _, it := range list {
		switch {
		case it.Call != nil:
			c := it.Call
			s, e := when(c.Start), when(c.End)
			if c.End == "" {
				e = s
			}
			attrs := []attribute.KeyValue{
				semconv.GenAIOperationNameExecuteTool,
				semconv.GenAIToolName(c.Tool),
				semconv.GenAIToolType(toolType(c.Tool)),
				conv,
				attribute.String("logbook.kind", c.Kind),
				attribute.String("logbook.tool", c.Tool),
				attribute.String("logbook.tool_use_id", c.ToolUseID),
				attribute.String("logbook.subject", c.Subject),
				attribute.Int64Slice("logbook.pre_seqs", c.Pre()),
				attribute.Int64Slice("logbook.post_seqs", c.Post()),
				attribute.Bool("logbook.failed", c.Failed),
			}
			if x := c.ExitCode(); x != nil {
				attrs = append(attrs, attribute.Int64("process.exit.code", *x))
			}
			if d := c.Duration(); d != nil {
				attrs = append(attrs, attribute.Int64("logbook.duration_ms", *d))
			}
			if g := c.Gaps(); len(g) > 0 {
				attrs = append(attrs, attribute.StringSlice("logbook.gaps", g))
			}
			if c.ToolUseID != "" {
				attrs = append(attrs, semconv.GenAIToolCallID(c.ToolUseID))
			}
			if c.Agent != "" {
				attrs = append(attrs, semconv.GenAIAgentID(c.Agent), attribute.String("logbook.agent_id", c.Agent))
			}
			name := "execute_tool"
			if c.Tool != "" {
				name += " " + c.Tool
			}
			if c.Failed {
				attrs = append(attrs, semconv.ErrorTypeKey.String(errorType(c)))
			}
			cctx, span := tr.Start(ctx, name, trace.WithTimestamp(s), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal))
			if c.Failed {
				span.SetStatus(codes.Error, "the tool call failed")
			}
			if g := c.GateStep(); g != nil {
				// The gate decided this call: its record is the call's.
				em.log(cctx, g, turn, c.Agent, "")
			}
			span.End(trace.WithTimestamp(e))
			em.spans++
			if e.After(last) {
				last = e
			}
		case it.SubAgent != nil:
			a := it.SubAgent
			s := when(a.Start)
			name := a.Type
			if name == "" {
				name = "sub-agent"
			}
			actx, span := tr.Start(ctx, "invoke_agent "+name, trace.WithTimestamp(s), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
				semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentID(a.ID), semconv.GenAIAgentName(name), conv,
				attribute.String("logbook.agent_id", a.ID), attribute.String("logbook.agent_type", a.Type)))
			for i := range a.Marks {
				em.log(actx, &a.Marks[i], turn, a.ID, a.Type)
			}
			e := em.items(actx, a.Items, span, s, turn)
			if a.End != "" {
				e = when(a.End)
			}
			span.End(trace.WithTimestamp(e))
			em.spans++
			if e.After(last) {
				last = e
			}
		case it.Event != nil:
			ev := it.Event
			parent.AddEvent(ev.Summary, trace.WithTimestamp(when(ev.At)), trace.WithAttributes(
				attribute.String("logbook.event", ev.Event), attribute.String("logbook.kind", ev.Kind),
				attribute.Int64("logbook.seq", ev.Seq), attribute.StringSlice("logbook.outputs_sha256", ev.Outputs())))
			if em.lg != nil {
				st := ev.Full()
				em.log(ctx, &st, turn, ev.Agent, "")
			}
			if t := when(ev.At); t.After(last) {
				last = t
			}
		}
	}
	return last
}

// providers names the model provider behind a harness, as
// gen_ai.provider.name spells it, where the harness has one.
var providers = map[string]attribute.KeyValue{
	"claude-code": semconv.GenAIProviderNameAnthropic,
	"codex":       semconv.GenAIProviderNameOpenAI,
	"gemini":      semconv.GenAIProviderNameGCPGemini,
}

// toolType is gen_ai.tool.type: an MCP server's tool ("mcp__server__name")
// is an extension, a harness's own tool a function.
func toolType(tool string) string {
	if strings.HasPrefix(tool, "mcp__") {
		return "extension"
	}
	return "function"
}

// errorType is error.type for a failed call: its exit status when it has
// one, else "tool_error".
func errorType(c *review.Call) string {
	if x := c.ExitCode(); x != nil {
		return fmt.Sprintf("exit_%d", *x)
	}
	return "tool_error"
}

func when(at string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Unix(0, 0)
	}
	return t
}

// ids derives trace and span ids from a seed, in order: the same record
// exported twice gives the same ids.
type ids struct {
	mu    sync.Mutex
	trace trace.TraceID
	seed  [32]byte
	n     uint64
}

func newIDs(seed string) *ids {
	g := &ids{seed: sha256.Sum256([]byte("logbook/otlp/v1\x00" + seed))}
	copy(g.trace[:], g.seed[:16])
	return g
}

func (g *ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	return g.trace, g.NewSpanID(ctx, g.trace)
}

func (g *ids) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	g.n++
	n := g.n
	g.mu.Unlock()
	var buf [40]byte
	copy(buf[:], g.seed[:])
	binary.BigEndian.PutUint64(buf[32:], n)
	sum := sha256.Sum256(buf[:])
	var id trace.SpanID
	copy(id[:], sum[:8])
	return id
}

// log emits one log record for a step that is not a call's, under the
// span in ctx (the SDK copies its trace and span id into the record).
// agent is the sub-agent the step belongs to ("" for the main agent),
// agentType its type when known.
func (em *emitter) log(ctx context.Context, st *review.Step, turn int, agent, agentType string) {
	if em.lg == nil {
		return
	}
	var rec log.Record
	at := when(st.At)
	rec.SetTimestamp(at)
	rec.SetObservedTimestamp(at) // when the record observed it
	rec.SetBody(attribute.StringValue(st.Summary))
	name, sev := "logbook.event", log.SeverityInfo
	switch {
	case st.Gate != nil:
		name = "logbook.gate"
		if st.Gate.Decision != "allow" {
			sev = log.SeverityWarn
		}
		if st.Gate.Error != "" {
			sev = log.SeverityError
		}
	case st.Event == "UserPromptSubmit":
		name = "logbook.prompt"
	case strings.Contains(st.Event, "Failure") || strings.Contains(st.Event, "Error"):
		sev = log.SeverityError
	}
	rec.SetEventName(name)
	rec.SetSeverity(sev)
	rec.SetSeverityText(sev.String())
	attrs := []attribute.KeyValue{
		em.conv,
		attribute.Int64("logbook.seq", st.Seq),
		attribute.String("logbook.kind", st.Kind),
		attribute.Int("logbook.turn", turn),
		attribute.StringSlice("logbook.inputs_sha256", st.Inputs),
		attribute.StringSlice("logbook.outputs_sha256", st.Outputs),
	}
	if st.Event != "" {
		attrs = append(attrs, attribute.String("logbook.event", st.Event))
	}
	if em.recordID != "" {
		attrs = append(attrs, attribute.String("logbook.record.id", em.recordID))
	}
	if agent == "" {
		agent = st.AgentID
	}
	if agent != "" {
		attrs = append(attrs, semconv.GenAIAgentID(agent), attribute.String("logbook.agent_id", agent))
		if agentType == "" {
			agentType = st.AgentType
		}
		if agentType != "" {
			attrs = append(attrs, semconv.GenAIAgentName(agentType))
		}
	}
	if st.Tool != "" {
		attrs = append(attrs, semconv.GenAIToolName(st.Tool))
	}
	if st.ToolUseID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(st.ToolUseID))
	}
	if st.TurnID != "" {
		attrs = append(attrs, attribute.String("logbook.turn_id", st.TurnID))
	}
	if st.Command != "" {
		attrs = append(attrs, attribute.String("logbook.command", st.Command))
	}
	if st.Path != "" {
		attrs = append(attrs, attribute.String("logbook.path", st.Path))
	}
	if g := st.Gate; g != nil {
		attrs = append(attrs, attribute.String("logbook.gate.decision", g.Decision), attribute.Bool("logbook.gate.enforced", g.Enforced))
		if g.Rule != "" {
			attrs = append(attrs, attribute.String("logbook.gate.rule", g.Rule))
		}
		if g.Reason != "" {
			attrs = append(attrs, attribute.String("logbook.gate.reason", g.Reason))
		}
		if g.Error != "" {
			attrs = append(attrs, attribute.String("logbook.gate.error", g.Error), semconv.ErrorTypeKey.String("logbook.gate_error"))
		}
	}
	rec.AddAttributes(attrs...)
	em.lg.Emit(ctx, rec)
}
