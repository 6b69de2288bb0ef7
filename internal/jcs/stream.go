package jcs

import (
	"sort"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// AppendText writes the RFC 8785 form of text, one JSON value whose
// subtree has no flags (no lone surrogate or duplicate key), a level at a
// time: an array's items are canonicalized as they are read, an object's
// members are sorted by key and each value is read again from its own
// span. It never holds more than one level's keys, so a value of millions
// of items costs little memory; the price is that a value nested d objects
// deep is read d times.
//
// opt is how text is read (opt.Depth: its nesting depth in its document).
// num, when not nil, sees every number literal first and may refuse it
// (a record allows integers only, spec §2). Spill is drained as it goes.
func (b *Buffer) AppendText(text []byte, opt strictjson.Options, num func(lit string) error) error {
	opt.Discard, opt.Stream = "", nil
	child := func(v *strictjson.Value) error {
		switch v.Kind {
		case strictjson.Array, strictjson.Object:
			inner := opt
			inner.Depth++
			return b.AppendText(text[v.Start:v.End], inner, num)
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
	v, err := strictjson.Shallow(text, opt, nil)
	if err != nil {
		return err
	}
	if v.Kind != strictjson.Object {
		return child(v)
	}
	order := make([]int, len(v.Members))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return LessUTF16(v.Members[order[x]].Key, v.Members[order[y]].Key) })
	b.B = append(b.B, '{')
	for n, i := range order {
		if n > 0 {
			b.B = append(b.B, ',')
		}
		b.AppendString(v.Members[i].Key)
		b.B = append(b.B, ':')
		if err := child(&v.Members[i].Value); err != nil {
			return err
		}
	}
	b.B = append(b.B, '}')
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
