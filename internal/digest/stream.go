package digest

import (
	"sort"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// maxDepth bounds nesting as the hook payload reader does.
const maxDepth = 16384

// canonStream writes the RFC 8785 form of text, one JSON value whose
// subtree has no flags (no lone surrogate, duplicate key or out-of-range
// number), into b a level at a time: an array's items are canonicalized as
// they are read, an object's members are sorted by key and each value is
// read again from its own span. It never holds more than one level's keys,
// so a body of millions of values costs little memory; the price is that a
// value nested d objects deep is read d times. depth is text's nesting
// depth in its document.
func canonStream(b *jcs.Buffer, text []byte, depth int) error {
	opt := strictjson.Options{Lenient: true, MaxDepth: maxDepth, Depth: depth}
	if first(text) == '[' {
		b.B = append(b.B, '[')
		_, err := strictjson.Shallow(text, opt, func(i int, item *strictjson.Value) error {
			if i > 0 {
				b.B = append(b.B, ',')
			}
			return canonChild(b, text, item, depth+1)
		})
		b.B = append(b.B, ']')
		return err
	}
	v, err := strictjson.Shallow(text, opt, nil)
	if err != nil {
		return err
	}
	if v.Kind != strictjson.Object {
		return b.Append(v)
	}
	order := make([]int, len(v.Members))
	for i := range order {
		order[i] = i
	}
	sortByKey(order, v.Members)
	b.B = append(b.B, '{')
	for n, i := range order {
		if n > 0 {
			b.B = append(b.B, ',')
		}
		b.AppendString(v.Members[i].Key)
		b.B = append(b.B, ':')
		if err := canonChild(b, text, &v.Members[i].Value, depth+1); err != nil {
			return err
		}
	}
	b.B = append(b.B, '}')
	return nil
}

// canonChild writes a value read shallowly from text: scalars at once,
// arrays and objects by reading their span again.
func canonChild(b *jcs.Buffer, text []byte, v *strictjson.Value, depth int) error {
	if v.Kind == strictjson.Array || v.Kind == strictjson.Object {
		return canonStream(b, text[v.Start:v.End], depth)
	}
	err := b.Append(v)
	b.Drain()
	return err
}

func first(text []byte) byte {
	for _, c := range text {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// sortByKey orders member indexes by key in RFC 8785 order (UTF-16 code
// units).
func sortByKey(order []int, ms []strictjson.Member) {
	sort.SliceStable(order, func(a, b int) bool { return jcs.LessUTF16(ms[order[a]].Key, ms[order[b]].Key) })
}
