package hookconf

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// A configuration file is edited as text, not re-serialised: every byte
// outside what install adds stays as it was (spacing, key order, escapes),
// so uninstall can give back the original file byte for byte. The file is
// read with the strict reader (spec §1 rules: one text, no duplicate keys,
// valid UTF-8) and its values' offsets locate the edits.

// doc is a parsed configuration text.
type doc struct {
	text []byte
	root *strictjson.Value
}

func parseDoc(text []byte) (doc, error) {
	v, err := strictjson.Parse(text, strictjson.Options{MaxDepth: 256})
	if err != nil {
		return doc{}, err
	}
	if v.Kind != strictjson.Object {
		return doc{}, fmt.Errorf("the top level is not a JSON object")
	}
	return doc{text: text, root: v}, nil
}

// keyStart finds where the key of the member whose value starts at
// valueStart begins: back over ':' and whitespace to the key's closing
// quote, then to the first quote before it not escaped by a backslash.
func keyStart(text []byte, valueStart int) int {
	i := valueStart - 1
	for i >= 0 && (isSpace(text[i]) || text[i] == ':') {
		i--
	}
	// text[i] is the key's closing quote.
	for j := i - 1; j >= 0; j-- {
		if text[j] != '"' {
			continue
		}
		n := 0
		for k := j - 1; k >= 0 && text[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// span is the text of one element of a container: an array item, or an
// object member from its key to the end of its value.
type span struct{ start, end int }

func elements(text []byte, c *strictjson.Value) []span {
	var out []span
	if c.Kind == strictjson.Array {
		for _, it := range c.Items {
			out = append(out, span{it.Start, it.End})
		}
		return out
	}
	for _, m := range c.Members {
		out = append(out, span{keyStart(text, m.Value.Start), m.Value.End})
	}
	return out
}

// style is how a file lays out its JSON, learnt from the file itself so
// that added text looks like the rest.
type style struct {
	unit  string // one level of indentation; "" for single-line JSON
	colon string // ": " or ":"
	nl    string // "\n" or "\r\n"
}

func learnStyle(text []byte) style {
	s := style{unit: "  ", colon: ": ", nl: "\n"}
	if bytes.Contains(text, []byte("\r\n")) {
		s.nl = "\r\n"
	}
	d, err := parseDoc(text)
	if err != nil || len(d.root.Members) == 0 {
		return s
	}
	first := elements(text, d.root)[0]
	if !bytes.ContainsAny(text[d.root.Start:first.start], "\n") {
		s.unit = "" // single-line file
	} else {
		s.unit = lineIndent(text, first.start)
	}
	between := text[first.start:d.root.Members[0].Value.Start]
	if colon := bytes.IndexByte(between[bytes.LastIndexByte(between, '"'):], ':'); colon >= 0 {
		rest := between[bytes.LastIndexByte(between, '"')+colon+1:]
		if len(rest) == 0 {
			s.colon = ":"
		}
	}
	return s
}

// lineIndent is the run of spaces and tabs that starts the line holding pos.
func lineIndent(text []byte, pos int) string {
	ls := bytes.LastIndexByte(text[:pos], '\n') + 1
	e := ls
	for e < len(text) && (text[e] == ' ' || text[e] == '\t') {
		e++
	}
	return string(text[ls:e])
}

// node is a JSON value to add, with its members in the order they are
// written.
type node struct {
	members []member // an object, when items is nil and str/num are empty
	items   []node   // an array, when isArr
	isArr   bool
	str     *string
	num     string
}

type member struct {
	key string
	val node
}

func str(s string) node          { return node{str: &s} }
func num(n int) node             { return node{num: strconv.Itoa(n)} }
func obj(ms ...member) node      { return node{members: ms} }
func arr(items ...node) node     { return node{items: items, isArr: true} }
func kv(k string, v node) member { return member{k, v} }

// render writes n in the file's style; indent is the indentation of the
// line n starts on.
func (st style) render(n node, indent string) string {
	var b strings.Builder
	st.write(&b, n, indent)
	return b.String()
}

func (st style) write(b *strings.Builder, n node, indent string) {
	switch {
	case n.str != nil:
		b.WriteString(quote(*n.str))
	case n.num != "":
		b.WriteString(n.num)
	case n.isArr:
		if len(n.items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			st.open(b, indent)
			st.write(b, it, indent+st.unit)
		}
		st.close(b, indent)
		b.WriteByte(']')
	default:
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			st.open(b, indent)
			b.WriteString(quote(m.key))
			b.WriteString(st.colon)
			st.write(b, m.val, indent+st.unit)
		}
		st.close(b, indent)
		b.WriteByte('}')
	}
}

func (st style) open(b *strings.Builder, indent string) {
	if st.unit == "" {
		return
	}
	b.WriteString(st.nl + indent + st.unit)
}

func (st style) close(b *strings.Builder, indent string) {
	if st.unit != "" {
		b.WriteString(st.nl + indent)
	}
}

// quote writes s as a JSON string the way JSON.stringify does: only '"',
// '\' and control characters escaped.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// appendTo adds one element (rendered by elem, given the indentation of
// the line it starts on) at the end of container c: after the last element,
// with the same separator as the elements before it, or inside an empty
// container on a line of its own.
func appendTo(text []byte, st style, c *strictjson.Value, elem func(indent string) string) []byte {
	els := elements(text, c)
	var ins string
	var at int
	switch {
	case len(els) == 0:
		inner := lineIndent(text, c.Start) + st.unit
		ins = elem(inner)
		if st.unit != "" {
			ins = st.nl + inner + ins + st.nl + lineIndent(text, c.Start)
		}
		// Whatever stood inside the empty container (whitespace) is replaced.
		return splice(text, c.Start+1, c.End-1, ins)
	case len(els) >= 2:
		last := els[len(els)-1]
		sep := string(text[els[len(els)-2].end:last.start])
		ins = sep + elem(lineIndent(text, last.start))
		at = last.end
	default:
		last := els[0]
		lead := string(text[c.Start+1 : last.start]) // "\n    " or "" or " "
		ins = "," + lead + elem(lineIndent(text, last.start))
		at = last.end
	}
	return splice(text, at, at, ins)
}

// removeFrom deletes element i of container c with one separator, the
// inverse of appendTo: after a previous element, from that element's end;
// as the first of several, up to the next one; alone, the container's
// whole inside.
func removeFrom(text []byte, c *strictjson.Value, i int) []byte {
	els := elements(text, c)
	switch {
	case i > 0:
		return splice(text, els[i-1].end, els[i].end, "")
	case len(els) > 1:
		return splice(text, els[0].start, els[1].start, "")
	default:
		return splice(text, c.Start+1, c.End-1, "")
	}
}

func splice(text []byte, from, to int, ins string) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(ins))
	out = append(out, text[:from]...)
	out = append(out, ins...)
	return append(out, text[to:]...)
}
