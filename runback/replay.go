package runback

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
)

// ErrNotRecorded is wrapped by every *NotRecordedError.
var ErrNotRecorded = errors.New("runback: call not in the cassette")

// NotRecordedError is a call a replay was asked for that the cassette does
// not hold (or holds fewer times): nothing goes out instead.
type NotRecordedError struct {
	Kind string // llm, tool, now, random, uuid, fetch
	Name string // model id, tool name, or fetch URL
	Key  string // the oracle key asked for
}

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("runback: %s call %q (key %.12s…) is not in the cassette", e.Kind, e.Name, e.Key)
}

func (e *NotRecordedError) Unwrap() error { return ErrNotRecorded }

// Replayer serves a cassette's recorded outputs by key, in recorded order
// per key, and records what it serves, so that Digest after the run can be
// compared with the cassette's.
type Replayer struct {
	rec      *Recorder
	recorded string // the cassette's cassette_digest
	mu       sync.Mutex
	queues   map[string][]*js.Value // kind + key → events, seq order
	err      error                  // first NotRecordedError of an env read
}

// NewReplayer reads a cassette. It must be intact (runback's integrity:
// schema, chain, digests, summary), whoever signed it; cfg is as for
// NewRecorder (its RunID defaults to the cassette's).
func NewReplayer(cassette []byte, cfg Config) (*Replayer, error) {
	res, err := cassettecheck.Verify(cassette, cassettecheck.Options{Pinned: nil})
	if err != nil {
		return nil, err
	}
	if !res.Integrity {
		return nil, fmt.Errorf("runback: cassette fails %v: not replayed", res.FailedChecks)
	}
	rec, _, err := js.Parse(cassette)
	if err != nil {
		return nil, err
	}
	events := js.Prop(rec, "events").Items
	if cfg.RunID == "" && len(events) > 0 {
		if id := js.Prop(&events[0], "run_id"); id.Kind == js.String {
			cfg.RunID = id.Str
		}
	}
	p := &Replayer{rec: NewRecorder(cfg), queues: map[string][]*js.Value{}}
	p.recorded = js.Prop(js.Prop(js.Prop(rec, "manifest"), "replay"), "cassette_digest").Str
	order, _, err := oracle.SeqOrder(events)
	if err != nil {
		return nil, err
	}
	var h oracle.Hasher
	for _, i := range order {
		e := &events[i]
		entry, ok, err := h.EntryOf(e)
		if err != nil {
			return nil, err
		}
		if !ok || entry.Kind.Kind != js.String || entry.Key.Kind != js.String {
			continue
		}
		k := entry.Kind.Str + "\x00" + entry.Key.Str
		p.queues[k] = append(p.queues[k], e)
	}
	return p, nil
}

// next pops the next recorded event for kind and key.
func (p *Replayer) next(kind, name, key string) (*js.Value, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := kind + "\x00" + key
	q := p.queues[k]
	if len(q) == 0 {
		return nil, &NotRecordedError{Kind: kind, Name: name, Key: key}
	}
	p.queues[k] = q[1:]
	return q[0], nil
}

func (p *Replayer) serve(name string) serveFunc {
	return func(typ, key string) (js.Value, js.Value, error) {
		e, err := p.next(typ, name, key)
		if err != nil {
			return js.Value{}, js.Value{}, err
		}
		out := js.Prop(e, "output")
		if typ == "llm" {
			out = js.Prop(e, "response")
		}
		errv := js.NullValue()
		if ev := js.Prop(e, "error"); ev.Truthy() {
			errv = *ev
		}
		return *out, errv, nil
	}
}

// Model serves a recorded model response; live is never called.
func (p *Replayer) Model(ctx context.Context, call ModelCall, _ func(context.Context) (any, error)) ([]byte, error) {
	return p.rec.call(ctx, "llm", call.Model, call.Provider, "", call.Request, nil, p.serve(call.Model))
}

// Tool serves a recorded tool output; live is never called.
func (p *Replayer) Tool(ctx context.Context, call ToolCall, _ func(context.Context) (any, error)) ([]byte, error) {
	return p.rec.call(ctx, "tool", call.Name, "", call.CallID, call.Input, nil, p.serve(call.Name))
}

// Fetch serves a recorded fetch; live is never called.
func (p *Replayer) Fetch(_ context.Context, method, url string, _ func(context.Context) (FetchResult, error)) (FetchResult, error) {
	url = p.rec.red.String(url)
	key := FetchKey(method, url)
	e, err := p.next("fetch", url, key)
	if err != nil {
		return FetchResult{}, err
	}
	out := js.Prop(e, "output").Clone()
	p.rec.env("fetch", key, out, js.Member{Key: "request", Value: js.Prop(e, "request").Clone()})
	return fetchResult(&out), nil
}

// envRead serves an environment read; a read the cassette lacks is kept as
// Err and gives the zero value.
func (p *Replayer) envRead(kind string) (js.Value, bool) {
	e, err := p.next(kind, kind, kind)
	if err != nil {
		p.mu.Lock()
		if p.err == nil {
			p.err = err
		}
		p.mu.Unlock()
		return js.Value{}, false
	}
	out := js.Prop(e, "output").Clone()
	p.rec.env(kind, kind, out)
	return out, true
}

// Now serves the recorded clock.
func (p *Replayer) Now() time.Time {
	v, ok := p.envRead("now")
	if !ok || v.Kind != js.Number || math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
		return time.Time{}
	}
	return time.UnixMilli(int64(v.Num))
}

// Random serves the recorded number.
func (p *Replayer) Random() float64 {
	v, _ := p.envRead("random")
	return v.Num
}

// UUID serves the recorded UUID.
func (p *Replayer) UUID() string {
	v, _ := p.envRead("uuid")
	return v.Str
}

// Err is the first environment read (Now, Random, UUID) the cassette did
// not hold; those methods cannot return it themselves.
func (p *Replayer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Start and End record the run envelope of the re-run (not part of the
// oracle stream).
func (p *Replayer) Start(input any) error              { return p.rec.Start(input) }
func (p *Replayer) End(output any, runErr error) error { return p.rec.End(output, runErr) }

// RecordedDigest is the cassette's replay.cassette_digest.
func (p *Replayer) RecordedDigest() string { return p.recorded }

// Digest is the re-run's cassette digest so far.
func (p *Replayer) Digest() string {
	d, _ := p.rec.CassetteDigest()
	return d
}

// Unused is how many recorded entries the re-run has not asked for.
func (p *Replayer) Unused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, q := range p.queues {
		n += len(q)
	}
	return n
}

// Check is nil when the re-run reproduced the recording: every read was
// recorded, and the digests are equal.
func (p *Replayer) Check() error {
	if err := p.Err(); err != nil {
		return err
	}
	if d := p.Digest(); d != p.recorded {
		return fmt.Errorf("runback: replay digest %s differs from the recorded %s (%d recorded entries unused)", d, p.recorded, p.Unused())
	}
	return nil
}

// Seal seals the re-run as a cassette of its own.
func (p *Replayer) Seal(s Signer) ([]byte, error) { return p.rec.Seal(s) }

var (
	_ Session = (*Recorder)(nil)
	_ Session = (*Replayer)(nil)
)
