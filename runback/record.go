package runback

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
)

// Session is what agent code calls for every non-deterministic input.
// *Recorder and *Replayer implement it, so the same code records and
// replays.
type Session interface {
	// Model asks a model; live makes the real call (never called in
	// replay). The result is the response as the cassette holds it.
	Model(ctx context.Context, call ModelCall, live func(context.Context) (any, error)) ([]byte, error)
	// Tool runs a tool the same way.
	Tool(ctx context.Context, call ToolCall, live func(context.Context) (any, error)) ([]byte, error)
	// Fetch reads a URL the same way.
	Fetch(ctx context.Context, method, url string, live func(context.Context) (FetchResult, error)) (FetchResult, error)
	// Now, Random and UUID are the environment reads.
	Now() time.Time
	Random() float64
	UUID() string
}

// ModelCall is one model request. Request is encoded as JSON.
type ModelCall struct {
	Provider string
	Model    string
	Request  any
}

// ToolCall is one tool call. Input is encoded as JSON.
type ToolCall struct {
	Name   string
	CallID string
	Input  any
}

// FetchResult is a fetched response. A body that is not UTF-8 is kept as
// base64.
type FetchResult struct {
	Status int
	Body   []byte
}

// KeyProjection strips volatile fields from a call's input before it is
// keyed (not from what is recorded): Keep names the top-level fields that
// count (the first segment of each path), Drop the dotted paths that don't.
type KeyProjection struct {
	Keep []string
	Drop []string
}

// CallError is a model or tool call that failed, as recorded.
type CallError struct {
	Name    string
	Message string
}

func (e *CallError) Error() string { return e.Name + ": " + e.Message }

// Config is a run's identity and the parts a recorder takes from outside.
type Config struct {
	RunID string // "" makes a random one
	Name  string // the agent's name (the run summary's name)
	// Clock is the time source, time.Now if nil: it stamps events (ts_start,
	// ts_end, latency_ms, generated_at) and is what Now reads (and records).
	Clock func() time.Time
	// Redactor, nil for the project's built-in rules.
	Redactor Redactor
	// Projections by tool name or model id.
	Projections map[string]KeyProjection
	// Rand is the source of Random and UUID; crypto/rand if nil.
	Rand func(b []byte)
}

// Recorder records a run. It is safe for concurrent use, but a replay
// serves calls with one key in the order they were recorded: an agent that
// issues calls concurrently must do so in a deterministic order.
type Recorder struct {
	cfg    Config
	red    Redactor
	mu     sync.Mutex
	events []js.Value
	seq    int
}

// NewRecorder starts recording.
func NewRecorder(cfg Config) *Recorder {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = func(b []byte) { _, _ = rand.Read(b) }
	}
	r := &Recorder{cfg: cfg, red: cfg.Redactor}
	if r.red == nil {
		r.red = builtin{}
	}
	if r.cfg.RunID == "" {
		var b [8]byte
		cfg.Rand(b[:])
		r.cfg.RunID = "run_" + hex.EncodeToString(b[:])
	}
	return r
}

// RunID is the run's id.
func (r *Recorder) RunID() string { return r.cfg.RunID }

func (r *Recorder) stamp() js.Value { return stampOf(r.cfg.Clock()) }

func stampOf(t time.Time) js.Value { return js.Str(t.UTC().Format("2006-01-02T15:04:05.000Z")) }

// base is the shared event fields, in runback's order.
func (r *Recorder) base(span, parent string, start js.Value, typ string) js.Value {
	p := js.NullValue()
	if parent != "" {
		p = js.Str(parent)
	}
	return js.Obj(
		js.Member{Key: "schema_version", Value: js.Num(1)},
		js.Member{Key: "run_id", Value: js.Str(r.cfg.RunID)},
		js.Member{Key: "span_id", Value: js.Str(span)},
		js.Member{Key: "parent_span_id", Value: p},
		js.Member{Key: "seq", Value: js.Num(0)},
		js.Member{Key: "ts_start", Value: start},
		js.Member{Key: "ts_end", Value: js.NullValue()},
		js.Member{Key: "type", Value: js.Str(typ)},
	)
}

// add appends an event under the lock, giving it the next seq.
func (r *Recorder) add(e js.Value) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Set("seq", js.Num(float64(r.seq)))
	if e.Get("span_id").Str == "" {
		e.Set("span_id", js.Str(fmt.Sprintf("s%d", r.seq)))
	}
	r.seq++
	r.events = append(r.events, e)
}

// Start records the run-start event.
func (r *Recorder) Start(input any) error {
	in, err := toValue(input, r.red)
	if err != nil {
		return err
	}
	e := r.base("r", "", r.stamp(), "run")
	for _, m := range []js.Member{{Key: "phase", Value: js.Str("start")}, {Key: "name", Value: js.Str(r.cfg.Name)},
		{Key: "input", Value: in}, {Key: "output", Value: js.NullValue()}, {Key: "status", Value: js.Str("running")},
		{Key: "error", Value: js.NullValue()}, {Key: "metadata", Value: js.Obj()}} {
		e.Set(m.Key, m.Value)
	}
	r.add(e)
	return nil
}

// End records the run-end event: status "completed" with output, or
// "error" with runErr.
func (r *Recorder) End(output any, runErr error) error {
	out, err := toValue(output, r.red)
	if err != nil {
		return err
	}
	status, errv := js.Str("completed"), js.NullValue()
	if runErr != nil {
		status, errv = js.Str("error"), errorValue(runErr, r.red)
	}
	e := r.base("re", "", r.stamp(), "run")
	e.Set("ts_end", e.Get("ts_start").Clone())
	for _, m := range []js.Member{{Key: "phase", Value: js.Str("end")}, {Key: "name", Value: js.Str(r.cfg.Name)},
		{Key: "input", Value: js.NullValue()}, {Key: "output", Value: out}, {Key: "status", Value: status},
		{Key: "error", Value: errv}, {Key: "metadata", Value: js.Obj()}} {
		e.Set(m.Key, m.Value)
	}
	r.add(e)
	return nil
}

func errorValue(err error, red Redactor) js.Value {
	name := "Error"
	if ce, ok := err.(*CallError); ok {
		name = ce.Name
		return js.Obj(js.Member{Key: "name", Value: js.Str(name)}, js.Member{Key: "message", Value: js.Str(red.String(ce.Message))})
	}
	return js.Obj(js.Member{Key: "name", Value: js.Str(name)}, js.Member{Key: "message", Value: js.Str(red.String(err.Error()))})
}

func (r *Recorder) projection(name string) js.Value {
	p, ok := r.cfg.Projections[name]
	if !ok {
		return js.Value{}
	}
	strs := func(ss []string) js.Value {
		a := js.Arr()
		a.Items = []js.Value{}
		for _, s := range ss {
			a.Items = append(a.Items, js.Str(s))
		}
		return a
	}
	obj := js.Obj()
	if len(p.Keep) > 0 {
		obj.Set("keep", strs(p.Keep))
	}
	if len(p.Drop) > 0 {
		obj.Set("drop", strs(p.Drop))
	}
	return obj
}

// callEvent builds an llm or tool event around an output that is already
// known (live or served).
func (r *Recorder) callEvent(typ string, t0 time.Time, fields []js.Member, outKey string, out js.Value, callErr js.Value) js.Value {
	e := r.base("", "r", stampOf(t0), typ)
	for _, m := range fields {
		if m.Value.Kind != js.Undefined {
			e.Set(m.Key, m.Value)
		}
	}
	e.Set(outKey, out)
	t1 := r.cfg.Clock()
	e.Set("ts_end", stampOf(t1))
	e.Set("latency_ms", js.Num(float64(t1.Sub(t0).Milliseconds())))
	e.Set("error", callErr)
	return e
}

// keyOf is the oracle key of a call's (redacted) input, with projection.
func (r *Recorder) keyOf(typ, name string, input *js.Value) (string, error) {
	proj := r.projection(name)
	projected, err := oracle.Project(input, &proj)
	if err != nil {
		return "", err
	}
	var h oracle.Hasher
	return h.Key(typ, name, projected), nil
}

// Model records a model call.
func (r *Recorder) Model(ctx context.Context, call ModelCall, live func(context.Context) (any, error)) ([]byte, error) {
	return r.call(ctx, "llm", call.Model, call.Provider, "", call.Request, live, nil)
}

// Tool records a tool call.
func (r *Recorder) Tool(ctx context.Context, call ToolCall, live func(context.Context) (any, error)) ([]byte, error) {
	return r.call(ctx, "tool", call.Name, "", call.CallID, call.Input, live, nil)
}

// serve, when not nil, stands in for live: it returns the recorded
// output (or recorded error) for a key (Replayer).
type serveFunc func(typ, key string) (out js.Value, callErr js.Value, err error)

func (r *Recorder) call(ctx context.Context, typ, name, provider, callID string, input any, live func(context.Context) (any, error), serve serveFunc) ([]byte, error) {
	in, err := toValue(input, r.red)
	if err != nil {
		return nil, err
	}
	t0 := r.cfg.Clock()
	var out, callErr js.Value
	callErr = js.NullValue()
	if serve != nil {
		key, err := r.keyOf(typ, r.red.String(name), &in)
		if err != nil {
			return nil, err
		}
		if out, callErr, err = serve(typ, key); err != nil {
			return nil, err
		}
	} else {
		res, err := live(ctx)
		if err != nil {
			callErr = errorValue(err, r.red)
			out = js.NullValue()
		} else if out, err = toValue(res, r.red); err != nil {
			return nil, err
		}
	}
	name = r.red.String(name)
	var fields []js.Member
	outKey := "output"
	if typ == "llm" {
		fields = []js.Member{{Key: "model", Value: js.Obj(js.Member{Key: "provider", Value: js.Str(provider)}, js.Member{Key: "model_id", Value: js.Str(name)})},
			{Key: "request", Value: in}, {Key: "key_projection", Value: r.projection(name)}}
		outKey = "response"
	} else {
		cid := js.NullValue()
		if callID != "" {
			cid = js.Str(callID)
		}
		fields = []js.Member{{Key: "tool_name", Value: js.Str(name)}, {Key: "tool_call_id", Value: cid},
			{Key: "input", Value: in}, {Key: "key_projection", Value: r.projection(name)}}
	}
	e := r.callEvent(typ, t0, fields, outKey, out, callErr)
	r.add(e)
	if callErr.Truthy() {
		return nil, &CallError{Name: js.Prop(&callErr, "name").Str, Message: js.Prop(&callErr, "message").Str}
	}
	return raw(&out), nil
}

// env records an environment read.
func (r *Recorder) env(kind, key string, out js.Value, extra ...js.Member) {
	e := r.base("", "r", r.stamp(), "env")
	e.Set("ts_end", e.Get("ts_start").Clone())
	e.Set("kind", js.Str(kind))
	e.Set("key", js.Str(key))
	for _, m := range extra {
		e.Set(m.Key, m.Value)
	}
	e.Set("output", out)
	r.add(e)
}

// Now records and returns the clock (milliseconds, as Date.now()).
func (r *Recorder) Now() time.Time {
	ms := r.cfg.Clock().UnixMilli()
	r.env("now", "now", js.Num(float64(ms)))
	return time.UnixMilli(ms)
}

// Random records and returns a number in [0, 1).
func (r *Recorder) Random() float64 {
	var b [8]byte
	r.cfg.Rand(b[:])
	f := float64(binary.BigEndian.Uint64(b[:])>>11) / (1 << 53)
	r.env("random", "random", js.Num(f))
	return f
}

// UUID records and returns a random (version 4) UUID.
func (r *Recorder) UUID() string {
	var b [16]byte
	r.cfg.Rand(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	u := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	r.env("uuid", "uuid", js.Str(u))
	return u
}

// FetchKey is a fetch's oracle key: SHA-256 of "fetch:METHOD:url".
func FetchKey(method, url string) string {
	s := sha256.Sum256([]byte("fetch:" + strings.ToUpper(method) + ":" + url))
	return hex.EncodeToString(s[:])
}

// Fetch records a fetch.
func (r *Recorder) Fetch(ctx context.Context, method, url string, live func(context.Context) (FetchResult, error)) (FetchResult, error) {
	res, err := live(ctx)
	if err != nil {
		return res, err // a failed fetch is the agent's to handle; nothing was read
	}
	url = r.red.String(url)
	out := fetchValue(res, r.red)
	r.env("fetch", FetchKey(method, url), out, js.Member{Key: "request", Value: js.Obj(js.Member{Key: "method", Value: js.Str(strings.ToUpper(method))}, js.Member{Key: "url", Value: js.Str(url)})})
	return fetchResult(&out), nil
}

func fetchValue(res FetchResult, red Redactor) js.Value {
	o := js.Obj(js.Member{Key: "status", Value: js.Num(float64(res.Status))})
	if utf8.Valid(res.Body) {
		o.Set("body", js.Str(red.String(string(res.Body))))
	} else {
		o.Set("body_base64", js.Str(base64.StdEncoding.EncodeToString(res.Body)))
	}
	return o
}

func fetchResult(v *js.Value) FetchResult {
	st := js.Prop(v, "status")
	res := FetchResult{}
	if st.Kind == js.Number && st.Num == math.Trunc(st.Num) {
		res.Status = int(st.Num)
	}
	if b := js.Prop(v, "body"); b.Kind == js.String {
		res.Body = js.AppendUTF8(nil, b.Str)
	} else if b := js.Prop(v, "body_base64"); b.Kind == js.String {
		res.Body, _ = base64.StdEncoding.DecodeString(b.Str)
	}
	return res
}

// CassetteDigest is the oracle-stream digest of what has been recorded so
// far, and the number of entries.
func (r *Recorder) CassetteDigest() (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, n, err := oracle.CassetteDigest(r.events)
	if err != nil {
		return "", 0 // recorded events are objects with number seqs: unreachable
	}
	return d, n
}
