// Package strictjson reads JSON text (RFC 8259) into an ordered tree and
// refuses what record files may not contain (spec §1): invalid UTF-8, a byte
// order mark, trailing data, duplicate keys, lone surrogate escapes, and
// nesting deeper than a limit. encoding/json accepts several of these
// silently, so it never decides what a record says.
//
// In lenient mode (for harness payloads, which are bodies to digest rather
// than records to judge) duplicate keys and lone surrogates are kept and
// flagged instead of refused, so the caller can fall back to a digest of the
// exact text (spec §8).
package strictjson

import "strconv"

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	False
	True
	Number
	String
	Array
	Object
)

// Flags mark values that have no RFC 8785 canonical form. They are set on
// the value itself and on every enclosing value.
type Flags uint8

const (
	// LoneSurrogate: a \uD800-\uDFFF escape outside a valid pair (lenient mode).
	LoneSurrogate Flags = 1 << iota
	// DuplicateKey: an object names the same key twice (lenient mode).
	DuplicateKey
	// BadText: a string holds bytes that are not UTF-8 (each becomes
	// U+FFFD) or a raw control character (kept as it is): not JSON as
	// written, so the value has no canonical form (lenient mode).
	BadText
)

// Value is one node of a parsed JSON text.
//
// For String, Str holds the unescaped UTF-8 text (a lone surrogate becomes
// U+FFFD and sets LoneSurrogate; in lenient mode, so does each invalid
// UTF-8 byte, setting BadText). For Number, Str holds the literal exactly
// as written. Start and End are the byte offsets of the value's text in the
// input, so the exact text can be digested when there is no canonical form.
type Value struct {
	Kind    Kind
	Flags   Flags
	Str     string
	Items   []Value
	Members []Member
	Start   int
	End     int
}

// Member is one key/value pair of an object, in document order.
type Member struct {
	Key   string
	Value Value
}

// Get returns the value of the first member named key, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return &v.Members[i].Value
		}
	}
	return nil
}

// GetString returns the string member named key and whether it was a string.
func (v *Value) GetString(key string) (string, bool) {
	m := v.Get(key)
	if m == nil || m.Kind != String {
		return "", false
	}
	return m.Str, true
}

// Constructors for building trees in code (records are built, not parsed,
// by the recorder and the sealer).

// Str returns a string value.
func Str(s string) Value { return Value{Kind: String, Str: s} }

// Int returns an integer number value.
func Int(n int64) Value { return Value{Kind: Number, Str: strconv.FormatInt(n, 10)} }

// Bool returns true or false.
func Bool(b bool) Value {
	if b {
		return Value{Kind: True}
	}
	return Value{Kind: False}
}

// NullValue returns null.
func NullValue() Value { return Value{Kind: Null} }

// Arr returns an array of the given items.
func Arr(items ...Value) Value { return Value{Kind: Array, Items: items} }

// Obj returns an object with the given members in the given order.
func Obj(members ...Member) Value { return Value{Kind: Object, Members: members} }

// StrArr returns an array of strings.
func StrArr(ss []string) Value {
	items := make([]Value, len(ss))
	for i, s := range ss {
		items[i] = Str(s)
	}
	return Value{Kind: Array, Items: items}
}

// LastWins makes an object read in lenient mode name each key once, as
// JavaScript's JSON.parse does: the key keeps the place of its first
// occurrence and takes the value of its last. It returns the keys that
// were repeated (nil when none was), in the order of their first repeat. The
// DuplicateKey flag stays: the text still has no canonical form.
//
// Hook payloads are read this way: the harness that sent one acted on
// what JSON.parse gave it, so the recorder must read the same values.
func (v *Value) LastWins() []string {
	if v == nil || v.Kind != Object || v.Flags&DuplicateKey == 0 {
		return nil
	}
	at := make(map[string]int, len(v.Members))
	repeated := map[string]bool{}
	var dups []string
	out := make([]Member, 0, len(v.Members))
	for _, m := range v.Members {
		if i, ok := at[m.Key]; ok {
			if !repeated[m.Key] {
				repeated[m.Key] = true
				dups = append(dups, m.Key)
			}
			out[i].Value = m.Value
			continue
		}
		at[m.Key] = len(out)
		out = append(out, m)
	}
	v.Members = out
	return dups
}
