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
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
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
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(url), otlptracehttp.WithTimeout(30*time.Second),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}))
	if err != nil {
		return 0, err
	}
	defer exp.Shutdown(context.Background())
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
	n, err := emit(ctx, tp.Tracer("github.com/logbook-project/logbook/review"), r)
	if serr := tp.Shutdown(ctx); err == nil {
		err = serr
	}
	if err != nil {
		return 0, err
	}
	if err := exp.ExportSpans(ctx, col.spans); err != nil {
		return 0, err
	}
	return n, nil
}

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

func emit(ctx context.Context, tr trace.Tracer, r *review.Review) (int, error) {
	start, end := when(r.Summary.Start), when(r.Summary.End)
	n := 0
	conv := semconv.GenAIConversationID(r.Session.ID)
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
				attribute.StringSlice("logbook.prompt.sha256", t.Prompt.Inputs), attribute.Int64("logbook.seq", t.Prompt.Seq))
		}
		tctx, span := tr.Start(ctx, name, trace.WithTimestamp(ts), trace.WithAttributes(attrs...))
		last := items(tctx, tr, t.Items, span, &n, ts, conv)
		span.End(trace.WithTimestamp(last))
		n++
	}
	root.End(trace.WithTimestamp(end))
	return n + 1, nil
}

// items emits calls and sub-agents as spans under parent and events as
// span events on it; it returns the latest time seen.
func items(ctx context.Context, tr trace.Tracer, list []review.Item, parent trace.Span, n *int, last time.Time, conv attribute.KeyValue) time.Time {
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
				attribute.Int64Slice("logbook.pre_seqs", c.Pre),
				attribute.Int64Slice("logbook.post_seqs", c.Post),
				attribute.Bool("logbook.failed", c.Failed),
			}
			if c.ExitCode != nil {
				attrs = append(attrs, attribute.Int64("process.exit.code", *c.ExitCode))
			}
			if c.Duration != nil {
				attrs = append(attrs, attribute.Int64("logbook.duration_ms", *c.Duration))
			}
			if len(c.Gaps) > 0 {
				attrs = append(attrs, attribute.StringSlice("logbook.gaps", c.Gaps))
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
			_, span := tr.Start(ctx, name, trace.WithTimestamp(s), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal))
			if c.Failed {
				span.SetStatus(codes.Error, "the tool call failed")
			}
			span.End(trace.WithTimestamp(e))
			*n++
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
			e := items(actx, tr, a.Items, span, n, s, conv)
			if a.End != "" {
				e = when(a.End)
			}
			span.End(trace.WithTimestamp(e))
			*n++
			if e.After(last) {
				last = e
			}
		case it.Event != nil:
			ev := it.Event
			parent.AddEvent(ev.Summary, trace.WithTimestamp(when(ev.At)), trace.WithAttributes(
				attribute.String("logbook.event", ev.Event), attribute.String("logbook.kind", ev.Kind),
				attribute.Int64("logbook.seq", ev.Seq), attribute.StringSlice("logbook.outputs_sha256", ev.Outputs)))
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
	if c.ExitCode != nil {
		return fmt.Sprintf("exit_%d", *c.ExitCode)
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
