package jcs

import (
	"errors"
	"sort"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// AppendText writes the RFC 8785 form of text, one JSON value whose
// subtree has no flags (no lone surrogate or duplicate key).
//
// A text of at most TreeUnder bytes is read as a tree and written from it:
// one read, and the tree is small. A longer one is read a level at a time:
// an array's items are canonicalized as they are read, an object's members
// are sorted by key and each value is read again from its own span. That
// never holds more than one level's keys, so a value of millions of items
// costs little memory; the price is that each byte is read once more for
// every long container around it. b.MaxLongLevels, when not 0, bounds
// that nesting (ErrTooDeepToStream), and with it the cost: at most
// MaxLongLevels+1 reads of any byte.
//
// opt is how text is read (opt.Depth: its nesting depth in its document).
// num, when not nil, sees every number literal first and may refuse it
// (a record allows integers only, spec §2). Spill is drained as it goes.
func (b *Buffer) AppendText(text []byte, opt strictjson.Options, num func(lit string) error) error {
	return b.appendText(text, opt, num, 0)
}

// TreeUnder is the length up to which AppendText reads a text as a tree:
// a tree costs about 100 bytes a value, so at most a few MB here. It is a
// variable only so that tests can force the level-at-a-time path.
var TreeUnder = 64 << 10

// ErrTooDeepToStream is returned by AppendText when long containers nest
// deeper than Buffer.MaxLongLevels.
var ErrTooDeepToStream = errors.New("long values nest too deep to canonicalize a level at a time")

func (b *Buffer) appendText(text []byte, opt strictjson.Options, num func(lit string) error, long int) error {
	opt.Discard, opt.Stream = "", nil
	if len(text) <= TreeUnder {
		v, err := strictjson.Parse(text, opt)
		if err != nil {
			return err
		}
		if num != nil {
			if err := eachNumber(v, num); err != nil {
				return err
			}
		}
		err = b.Append(v)
		b.spill()
		return err
	}
	if b.MaxLongLevels > 0 && long >= b.MaxLongLevels {
		return ErrTooDeepToStream
	}
	child := func(v *strictjson.Value) error {
		switch v.Kind {
		case strictjson.Array, strictjson.Object:
			inner := opt
			inner.Depth++
			return b.appendText(text[v.Start:v.End], inner, num, long+1)
		case strictjson.Number:
			if num != nil {
				if err := num(v.Str); err != nil {
					return err
				}
			}
		}
		err := b.Append(v)
		b.spill()
		return err
	}
	if firstByte(text) == '[' {
		b.B = append(b.B, '[')
		_, err := strictjson.Shallow(text, opt, func(i int, item *strictjson.Value) error {
			if i > 0 {
				b.B = append(b.B, ',')
			}
			return child(item)
		})
		b.B = append(b.B, ']')
		return err
	}
	if firstByte(text) != '{' {
		v, err := strictjson.Shallow(text, opt, nil)
		if err != nil {
			return err
		}
		return child(v)
	}
	// An object's members are kept as key and span only (about 60 bytes
	// each, the keys pointing into text when they have no escapes), then
	// sorted; duplicates are then neighbours.
	var ms []member
	opt.EachMember = func(key string, kf strictjson.Flags, v *strictjson.Value) error {
		ms = append(ms, member{key: key, str: v.Str, start: v.Start, end: v.End, kind: v.Kind, flags: v.Flags | kf})
		return nil
	}
	if _, err := strictjson.Shallow(text, opt, nil); err != nil {
		return err
	}
	sort.SliceStable(ms, func(x, y int) bool { return LessUTF16(ms[x].key, ms[y].key) })
	b.B = append(b.B, '{')
	for n := range ms {
		m := &ms[n]
		if n > 0 {
			if m.key == ms[n-1].key {
				return errDuplicateKey
			}
			b.B = append(b.B, ',')
		}
		b.AppendString(m.key)
		b.B = append(b.B, ':')
		v := strictjson.Value{Kind: m.kind, Flags: m.flags, Str: m.str, Start: m.start, End: m.end}
		if err := child(&v); err != nil {
			return err
		}
	}
	b.B = append(b.B, '}')
	return nil
}

// member is an object member as AppendText keeps it.
type member struct {
	key, str   string
	start, end int
	kind       strictjson.Kind
	flags      strictjson.Flags
}

var errDuplicateKey = errors.New("duplicate key: no canonical form")

// eachNumber calls num on every number literal in v, in text order.
func eachNumber(v *strictjson.Value, num func(lit string) error) error {
	switch v.Kind {
	case strictjson.Number:
		return num(v.Str)
	case strictjson.Array:
		for i := range v.Items {
			if err := eachNumber(&v.Items[i], num); err != nil {
				return err
			}
		}
	case strictjson.Object:
		for i := range v.Members {
			if err := eachNumber(&v.Members[i].Value, num); err != nil {
				return err
			}
		}
	}
	return nil
}

func firstByte(text []byte) byte {
	for _, c := range text {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}
