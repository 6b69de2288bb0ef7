// Package jsvalue reads JSON the way JavaScript's JSON.parse does and writes
// the canonical form runback hashes (docs/runback.md). It is deliberately
// not the record format's reader (internal/strictjson, internal/jcs), which
// refuses what this one accepts:
//
//   - a duplicate key keeps its first position and its last value;
//   - an escaped lone surrogate (\ud800) stays a lone surrogate;
//   - a number beyond the double range (1E400) becomes Infinity, written null;
//   - an own "__proto__" key is an ordinary member;
//   - keys sort by UTF-16 code units; numbers print as Number::toString;
//   - bytes that are not UTF-8 become U+FFFD as Node's file decoding does.
//
// Strings are held as WTF-8: UTF-8 in which a lone surrogate is the 3-byte
// form of its code unit (ED A0 80 for U+D800). A surrogate pair written as
// two escapes is joined into one code point, as a JavaScript string would be.
// Everything the reader tolerates is reported in a Report, so that a caller
// can name it (the findings layer of internal/cassettecheck).
package jsvalue

import "math"

// Kind is a JavaScript value's type as JSON can produce it, plus Undefined
// (a missing property), which canonical output omits from objects.
type Kind uint8

// The kinds.
const (
	Undefined Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// Value is a parsed JSON value.
type Value struct {
	Kind    Kind
	Bool    bool
	Num     float64
	Str     string   // WTF-8
	Items   []Value  // Array
	Members []Member // Object: first-seen order, duplicates resolved
}

// Member is one object property.
type Member struct {
	Key   string // WTF-8
	Value Value
}

// Get returns the own property key, or nil. Only objects have properties
// here: a JSON string's or array's named properties are never looked up by
// runback's verifier except length, which callers handle.
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

// Has reports an own property.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Str returns s as a string value.
func Str(s string) Value { return Value{Kind: String, Str: s} }

// Num returns f as a number value.
func Num(f float64) Value { return Value{Kind: Number, Num: f} }

// Obj returns an object of the members, in that order.
func Obj(ms ...Member) Value { return Value{Kind: Object, Members: ms} }

// Arr returns an array.
func Arr(items ...Value) Value { return Value{Kind: Array, Items: items} }

// NullValue is null.
func NullValue() Value { return Value{Kind: Null} }

// Truthy is JavaScript's ToBoolean.
func (v *Value) Truthy() bool {
	if v == nil {
		return false
	}
	switch v.Kind {
	case Undefined, Null:
		return false
	case Bool:
		return v.Bool
	case Number:
		return v.Num != 0 && !math.IsNaN(v.Num)
	case String:
		return v.Str != ""
	}
	return true
}

// IsNullish reports undefined or null (a nil pointer is undefined).
func (v *Value) IsNullish() bool { return v == nil || v.Kind == Undefined || v.Kind == Null }

// Set replaces or appends the member key.
func (v *Value) Set(key string, val Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, Member{key, val})
}

// Delete removes the own member key, if any.
func (v *Value) Delete(key string) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members = append(v.Members[:i:i], v.Members[i+1:]...)
			return
		}
	}
}

// Clone returns a deep copy.
func (v Value) Clone() Value {
	switch v.Kind {
	case Array:
		items := make([]Value, len(v.Items))
		for i := range v.Items {
			items[i] = v.Items[i].Clone()
		}
		v.Items = items
	case Object:
		ms := make([]Member, len(v.Members))
		for i := range v.Members {
			ms[i] = Member{v.Members[i].Key, v.Members[i].Value.Clone()}
		}
		v.Members = ms
	}
	return v
}

// Raw is canonical JSON text that encoding/json writes as is.
type Raw []byte

// MarshalJSON returns the text.
func (r Raw) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

// RawOf is v's canonical text.
func RawOf(v *Value) Raw { return Raw(Canonical(v)) }
