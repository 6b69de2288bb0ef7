package orgpolicy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// Redacted is what a selected value becomes.
const Redacted = `"[REDACTED]"`

// payloadFields are the hook payload members that hold a tool's arguments
// or its result, in every dialect the recorder reads (internal/hookevent):
// the only places a redaction pointer may select. Everything else (ids,
// event names, cwd, approval state, order) is what the record proves and
// what the gate decides on; a policy that could blank it could hide a call.
var payloadFields = []string{
	"tool_input", "toolInput", "toolArgs", "tool_args",
	"tool_response", "toolResponse", "toolResult", "tool_result", "tool_output",
}

// pointer is a parsed RFC 6901 JSON Pointer.
type pointer []string

func parsePointer(s string) (pointer, error) {
	if s == "" || s[0] != '/' {
		return nil, fmt.Errorf("%q is not a JSON Pointer (RFC 6901: empty, or starting with '/')", s)
	}
	toks := strings.Split(s[1:], "/")
	for i, t := range toks {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("%q: '~' must be followed by 0 or 1 (RFC 6901)", s)
			}
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

func (p *Policy) parseRedact(v *strictjson.Value) error {
	if v == nil {
		return nil
	}
	if v.Kind != strictjson.Array {
		return fail(ErrMalformed, "redact must be an array of JSON Pointers")
	}
	if len(v.Items) > MaxPointers {
		return fail(ErrMalformed, fmt.Sprintf("%d redaction pointers, at most %d", len(v.Items), MaxPointers))
	}
	for i := range v.Items {
		it := &v.Items[i]
		if it.Kind != strictjson.String {
			return fail(ErrMalformed, fmt.Sprintf("redact[%d] is not a string", i))
		}
		ptr, err := parsePointer(it.Str)
		if err != nil {
			return fail(ErrMalformed, fmt.Sprintf("redact[%d]: %v", i, err))
		}
		if !slices.Contains(payloadFields, ptr[0]) {
			return fail(ErrRedactScope, fmt.Sprintf("redact[%d] %q selects %q: a policy may redact only tool arguments and results (%s), never record ids, events, digests, approval state, call order or the policy identity",
				i, it.Str, ptr[0], strings.Join(payloadFields, ", ")))
		}
		p.Redact = append(p.Redact, it.Str)
	}
	return nil
}

// inputFields are the payloadFields that hold a tool's arguments: what a
// call's input digest is taken of.
var inputFields = payloadFields[:4]

// RedactedField is the gate step's data member that says the policy's
// pointers changed the call's input before it was recorded: its
// post-event, recorded without them, then digests another input.
const RedactedField = "inputRedacted"

// RedactsInput reports whether a pointer selects within a tool's
// arguments (not only its result).
func (p *Policy) RedactsInput() bool {
	for _, s := range p.Redact {
		if ptr, err := parsePointer(s); err == nil && slices.Contains(inputFields, ptr[0]) {
			return true
		}
	}
	return false
}

// RedactPayload returns payload with the value at each of the policy's
// pointers replaced by "[REDACTED]", byte for byte elsewhere; a pointer
// that selects nothing changes nothing. A payload that is not JSON is
// returned as it is (the recorder refuses it by name). The digests the
// record holds are then those of the redacted bodies (docs/policy.md §5).
func (p *Policy) RedactPayload(payload []byte) []byte {
	if p == nil || len(p.Redact) == 0 {
		return payload
	}
	root, err := strictjson.Parse(payload, strictjson.Options{Lenient: true, MaxDepth: 16384})
	if err != nil {
		return payload
	}
	type span struct{ start, end int }
	var spans []span
	for _, s := range p.Redact {
		ptr, err := parsePointer(s)
		if err != nil {
			continue // refused at Parse
		}
		if v := lookup(root, ptr); v != nil {
			spans = append(spans, span{v.Start, v.End})
		}
	}
	if len(spans) == 0 {
		return payload
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := make([]byte, 0, len(payload))
	at := 0
	for _, sp := range spans {
		if sp.start < at {
			continue // inside a value already redacted
		}
		out = append(append(out, payload[at:sp.start]...), Redacted...)
		at = sp.end
	}
	return append(out, payload[at:]...)
}

// lookup follows ptr from v; nil when it selects nothing. With duplicate
// keys (a lenient read), the last one is taken, as JavaScript's
// JSON.parse, and so the harness, would.
func lookup(v *strictjson.Value, ptr pointer) *strictjson.Value {
	for _, tok := range ptr {
		switch v.Kind {
		case strictjson.Object:
			var next *strictjson.Value
			for i := range v.Members {
				if v.Members[i].Key == tok {
					next = &v.Members[i].Value
				}
			}
			if next == nil {
				return nil
			}
			v = next
		case strictjson.Array:
			if tok == "" || len(tok) > 1 && tok[0] == '0' {
				return nil
			}
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Items) {
				return nil
			}
			v = &v.Items[i]
		default:
			return nil
		}
	}
	return v
}
