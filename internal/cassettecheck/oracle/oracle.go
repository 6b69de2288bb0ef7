// Package oracle computes runback's two digests over a cassette's events:
// the event chain (content_digest) and the oracle-stream chain
// (cassette_digest), with key_projection. The verifier and the public
// recorder both call it, so a recorded cassette and a verified one cannot
// disagree about what a digest is (docs/runback.md §3–§4).
package oracle

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
)

// EmptyDigest is sha256("") in hex: the digest of no events, or of no
// oracle entries.
const EmptyDigest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Hasher hashes canonical forms, reusing its buffers.
type Hasher struct {
	enc js.Encoder
	buf []byte
}

func (h *Hasher) sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// EventHash is h_i = SHA-256(prev + canonical(event without its top-level
// "_hash")), in lowercase hex.
func (h *Hasher) EventHash(prev string, e *js.Value) string {
	h.buf = append(h.buf[:0], prev...)
	h.buf = h.enc.Append(h.buf, e, "_hash")
	return h.sum(h.buf)
}

// Chain returns every event's chain hash, in array order (not seq order),
// and the terminal digest (EmptyDigest for no events).
func Chain(events []js.Value) (hashes []string, digest string) {
	var h Hasher
	prev := ""
	hashes = make([]string, len(events))
	for i := range events {
		prev = h.EventHash(prev, &events[i])
		hashes[i] = prev
	}
	if prev == "" {
		prev = EmptyDigest
	}
	return hashes, prev
}

// Entry is one oracle-stream entry; Undefined members are left out of its
// canonical form, as JSON.stringify leaves them out.
type Entry struct {
	Kind, Key, Output js.Value
}

// Step is prev chained with an entry: SHA-256(prev + canonical({kind, key, output})).
func (h *Hasher) Step(prev string, e *Entry) string {
	h.buf = append(h.buf[:0], prev...)
	h.buf = h.appendEntry(h.buf, e)
	return h.sum(h.buf)
}

func (h *Hasher) appendEntry(b []byte, e *Entry) []byte {
	obj := js.Obj(js.Member{Key: "kind", Value: e.Kind}, js.Member{Key: "key", Value: e.Key}, js.Member{Key: "output", Value: e.Output})
	return h.enc.Append(b, &obj, "")
}

// EntryBytes is canonical({kind, key, output}), a new slice: what a
// streaming verifier keeps of an event until it knows the seq order.
func (h *Hasher) EntryBytes(e *Entry) []byte { return h.appendEntry(nil, e) }

// StepBytes is Step over entry bytes from EntryBytes.
func (h *Hasher) StepBytes(prev string, entry []byte) string {
	h.buf = append(append(h.buf[:0], prev...), entry...)
	return h.sum(h.buf)
}

// Key hashes "prefix:name:canonical(projected input)" as Node hashes a
// string: the name's lone surrogates become U+FFFD.
func (h *Hasher) Key(prefix, name string, input *js.Value) string {
	h.buf = append(h.buf[:0], prefix...)
	h.buf = append(h.buf, ':')
	h.buf = js.AppendUTF8(h.buf, name)
	h.buf = append(h.buf, ':')
	h.buf = h.enc.Append(h.buf, input, "")
	return h.sum(h.buf)
}

// EntryOf is the oracle entry an event contributes: llm and tool calls
// keyed by their (projected) inputs, env reads as recorded; ok is false for
// any other event (run envelopes, reasoning). It fails where runback's
// oracleEntryOf would throw.
func (h *Hasher) EntryOf(e *js.Value) (entry Entry, ok bool, err error) {
	if e.IsNullish() {
		return entry, false, &js.TypeError{Msg: "Cannot read properties of null (reading 'type')"}
	}
	typ := js.Prop(e, "type")
	if typ.Kind != js.String {
		return entry, false, nil
	}
	switch typ.Str {
	case "llm", "tool":
		var name, input *js.Value
		if typ.Str == "llm" {
			name = js.Prop(js.Prop(e, "model"), "model_id")
			input = js.Prop(e, "request")
		} else {
			name = js.Prop(e, "tool_name")
			input = js.Prop(e, "input")
		}
		nameStr := ""
		if !name.IsNullish() {
			if nameStr, err = js.ToString(name); err != nil {
				return entry, false, err
			}
		}
		projected, err := Project(input, js.Prop(e, "key_projection"))
		if err != nil {
			return entry, false, err
		}
		entry.Kind = js.Str(typ.Str)
		entry.Key = js.Str(h.Key(typ.Str, nameStr, projected))
		if errv := js.Prop(e, "error"); errv.Truthy() {
			entry.Output = js.Obj(js.Member{Key: "error", Value: *errv})
		} else if typ.Str == "llm" {
			entry.Output = *js.Prop(e, "response")
		} else {
			entry.Output = *js.Prop(e, "output")
		}
		return entry, true, nil
	case "env":
		return Entry{*js.Prop(e, "kind"), *js.Prop(e, "key"), *js.Prop(e, "output")}, true, nil
	}
	return entry, false, nil
}

// SeqOrder returns the event indexes sorted as runback sorts them for the
// oracle stream: a stable sort by (seq ?? 0) coerced to a number. Where
// that number is NaN runback's comparator is inconsistent and V8's sort
// order is its own; consistent is false then (docs/runback.md §4).
func SeqOrder(events []js.Value) (order []int, consistent bool, err error) {
	keys := make([]float64, len(events))
	consistent = true
	for i := range events {
		var nan bool
		keys[i], nan, err = SeqKey(&events[i], len(events))
		if err != nil {
			return nil, false, err
		}
		consistent = consistent && !nan
	}
	return SortBySeq(keys), consistent, nil
}

// SeqKey is the number runback's sort compares for an event, (seq ?? 0)
// coerced; n is the number of events (a sort of one compares nothing, so
// nothing can throw).
func SeqKey(e *js.Value, n int) (key float64, nan bool, err error) {
	if n < 2 {
		return 0, false, nil
	}
	if e.IsNullish() {
		return 0, false, &js.TypeError{Msg: "Cannot read properties of null (reading 'seq')"}
	}
	s := js.Prop(e, "seq")
	if s.IsNullish() {
		return 0, false, nil
	}
	if key, err = js.ToNumber(s); err != nil {
		return 0, false, err
	}
	return key, math.IsNaN(key), nil
}

// SortBySeq returns the indexes of keys in a stable ascending order, a NaN
// comparing equal to everything (as SortCompare turns NaN into +0).
func SortBySeq(keys []float64) []int {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		d := keys[a] - keys[b]
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
		return 0 // equal, or NaN (SortCompare turns NaN into +0)
	})
	return order
}

// CassetteDigest is the oracle-stream digest over events in seq order and
// the number of entries (EmptyDigest for none).
func CassetteDigest(events []js.Value) (digest string, count int, err error) {
	order, _, err := SeqOrder(events)
	if err != nil {
		return "", 0, err
	}
	var h Hasher
	prev := ""
	for _, i := range order {
		entry, ok, err := h.EntryOf(&events[i])
		if err != nil {
			return "", 0, err
		}
		if !ok {
			continue
		}
		prev = h.Step(prev, &entry)
		count++
	}
	if prev == "" {
		prev = EmptyDigest
	}
	return prev, count, nil
}
