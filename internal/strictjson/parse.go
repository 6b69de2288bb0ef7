package strictjson

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Options choose between the record reader (strict) and the payload reader.
type Options struct {
	// MaxDepth is the deepest nesting of arrays and objects allowed; 0 means
	// no limit other than memory.
	MaxDepth int
	// Lenient keeps duplicate keys and lone surrogates, flagging them.
	// Inside a value read without its children (Discard, Shallow), it does
	// not look for duplicate keys at all, which would mean keeping every
	// key of a value of millions: whoever canonicalizes that value from its
	// text finds them (jcs.AppendText does).
	Lenient bool
	// Discard names a member of the top-level object whose value is read
	// and checked in full but not kept: its Value has Kind, Start and End,
	// and no children.
	Discard string
	// Stream, with Discard, receives the items of the discarded value when
	// it is an array, one at a time and in order, each fully parsed. An
	// item's memory is reused once Stream returns: Stream must not keep it.
	// A 100,000-step record is verified this way, one step in memory at a
	// time. An error from Stream ends the parse and is returned as is.
	Stream func(i int, item *Value) error
	// StreamShallow names members of each streamed item (an object) whose
	// values, when longer than ShallowOver bytes, are read in full but kept
	// without children, like Shallow's: a record step's free-form "data"
	// of millions of values is then canonicalized from its text.
	StreamShallow []string
	// EachMember, in a Shallow read whose root is an object, receives the
	// root's members one at a time, in text order, and they are not kept
	// (the root's Members stay empty). Duplicate keys are then not checked
	// here: the callback sees every key and must check them itself. The
	// value's memory is reused once EachMember returns.
	EachMember func(key string, keyFlags Flags, v *Value) error
	// Depth is the nesting depth of the text's outermost value within its
	// document (for MaxDepth), when a part of a document is parsed.
	Depth int
}

// SyntaxError says why a text is not accepted JSON, and where.
type SyntaxError struct {
	Offset int    // byte offset in the input
	Msg    string // what is wrong
	Err    error  // ErrTooDeep for nesting beyond Options.MaxDepth, else nil
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Unwrap lets errors.Is find ErrTooDeep.
func (e *SyntaxError) Unwrap() error { return e.Err }

// ErrTooDeep is what a SyntaxError wraps when the text nests deeper than
// Options.MaxDepth.
var ErrTooDeep = errors.New("nesting too deep")

// Parse reads exactly one JSON text from data (optional whitespace around
// it, nothing after it). Strings in the result may share memory with data:
// data must not be modified while the result is in use. Errors are
// *SyntaxError.
func Parse(data []byte, opt Options) (*Value, error) {
	p := parser{s: unsafeString(data), opt: opt}
	return p.parse()
}

// Shallow reads one JSON text like Parse but keeps only the top value and
// its children: a child array or object has Kind, Flags (those of its whole
// subtree), Start and End, and no children of its own. When the top value
// is an array and each is not nil, its items are passed to each, in order,
// instead of being kept. Memory stays small whatever the text holds, so a
// body of millions of values can be canonicalized a level at a time
// (package jcsstream).
func Shallow(data []byte, opt Options, each func(i int, item *Value) error) (*Value, error) {
	p := parser{s: unsafeString(data), opt: opt, shallow: true, each: each}
	return p.parse()
}

func (p *parser) parse() (*Value, error) {
	p.skipSpace()
	v, err := p.value(p.opt.Depth)
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return &v, nil
}

func (p *parser) end() error {
	p.skipSpace()
	if p.i != len(p.s) {
		return p.errf("data after the JSON text")
	}
	return nil
}

// unsafeString views data as a string without copying; data must not
// change while the parse result is in use.
func unsafeString(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	return unsafe.String(&data[0], len(data))
}

type parser struct {
	s        string
	i        int
	opt      Options
	discard  int                            // > 0 while inside a discarded value
	inStream bool                           // while reading a streamed item
	shallow  bool                           // keep the root's children only (see Shallow)
	each     func(i int, item *Value) error // Shallow's per-item callback for a root array
	input    int                            // the whole input's length when s is one line of it (ParseLines)
	// Scratch stacks: children are collected here and copied once into an
	// exactly sized slice, instead of growing each array by doubling.
	items   []Value
	members []Member
	// Slabs hand out exactly sized child slices from large blocks: one
	// allocation per few thousand values instead of one per array.
	itemSlab   slab[Value]
	memberSlab slab[Member]
	// cb is what a callback (Stream, EachMember, Shallow's each) is given
	// a pointer to: handing out the address of a local would move every
	// value read to the heap, one allocation per value (about 1.5 KB a
	// record step). Callbacks never nest within one parser.
	cb Value
}

// slab is a block that slices are carved from; off is the first free index.
type slab[T any] struct {
	block []T
	off   int
}

const maxSlab = 4096

// take copies src into the next len(src) free elements, starting a new
// block when this one is full. size is the new block's length.
func (s *slab[T]) take(src []T, size int) []T {
	n := len(src)
	if n > maxSlab/4 {
		return append([]T(nil), src...)
	}
	if len(s.block)-s.off < n {
		s.block, s.off = make([]T, max(n, size)), 0
	}
	out := s.block[s.off : s.off+n : s.off+n]
	s.off += n
	copy(out, src)
	return out
}

// mark and rewind let a streamed item's block be reused once it is done with.
type slabMark struct {
	items, members int
	itemBlock      *Value
	memberBlock    *Member
}

func (p *parser) mark() slabMark {
	return slabMark{p.itemSlab.off, p.memberSlab.off, first(p.itemSlab.block), first(p.memberSlab.block)}
}

// rewind frees everything taken since m; if a new block was started since,
// it is kept and reused from its start.
func (p *parser) rewind(m slabMark) {
	p.itemSlab.off, p.memberSlab.off = 0, 0
	if first(p.itemSlab.block) == m.itemBlock {
		p.itemSlab.off = m.items
	}
	if first(p.memberSlab.block) == m.memberBlock {
		p.memberSlab.off = m.members
	}
}

func first[T any](b []T) *T {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// slabSize scales with the input, so parsing a one-line step does not pay
// for a block sized for a 100,000-step record.
func (p *parser) slabSize() int { return min(maxSlab, max(len(p.s), p.input)/64) }

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads one value. It returns the Value rather than filling a
// pointer so that children stay on the stack (a pointer into a recursive
// call escapes to the heap: one allocation per value).
func (p *parser) value(depth int) (Value, error) {
	var v Value
	if p.i >= len(p.s) {
		return v, p.errf("unexpected end of input")
	}
	v.Start = p.i
	var err error
	switch c := p.s[p.i]; {
	case c == '{':
		err = p.object(&v, depth+1)
	case c == '[':
		err = p.array(&v, depth+1)
	case c == '"':
		v.Kind = String
		v.Str, v.Flags, err = p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		v.Kind = Number
		v.Str, err = p.number()
	case c == 't':
		v.Kind, err = True, p.literal("true")
	case c == 'f':
		v.Kind, err = False, p.literal("false")
	case c == 'n':
		v.Kind, err = Null, p.literal("null")
	default:
		if c == 0xEF && len(p.s) >= p.i+3 && p.s[p.i:p.i+3] == "\xEF\xBB\xBF" {
			return v, p.errf("byte order mark")
		}
		return v, p.errf("unexpected byte 0x%02x", c)
	}
	v.End = p.i
	return v, err
}

func (p *parser) literal(word string) error {
	if len(p.s)-p.i < len(word) || p.s[p.i:p.i+len(word)] != word {
		return p.errf("invalid literal")
	}
	p.i += len(word)
	return nil
}

func (p *parser) enter(depth int) error {
	if p.opt.MaxDepth > 0 && depth > p.opt.MaxDepth {
		return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf("nesting deeper than %d", p.opt.MaxDepth), Err: ErrTooDeep}
	}
	return nil
}

func (p *parser) array(v *Value, depth int) error {
	if err := p.enter(depth); err != nil {
		return err
	}
	v.Kind = Array
	p.i++ // [
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return nil
	}
	// The discarded top-level member's own array, when streamed.
	stream := p.discard == 1 && depth == p.opt.Depth+2 && p.opt.Stream != nil
	// The root array of a shallow read: items without their children.
	root := p.shallow && depth == p.opt.Depth+1
	base := len(p.items)
	for n := 0; ; n++ {
		var mark slabMark
		if stream {
			mark = p.mark()
			p.discard = 0 // collect this item's children
			p.inStream = true
		}
		if root {
			p.discard++
		}
		item, err := p.value(depth)
		if err != nil {
			return err // an error abandons the whole parse: no stack to restore
		}
		if root {
			p.discard--
		}
		if stream {
			p.inStream = false
			if err := p.opt.Stream(n, &item); err != nil {
				return err
			}
			p.discard = 1
			p.rewind(mark)
		}
		v.Flags |= item.Flags
		if root && p.each != nil {
			if err := p.each(n, &item); err != nil {
				return err
			}
		} else if p.discard == 0 {
			p.items = append(p.items, item)
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.errf("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case ']':
			p.i++
			if p.discard == 0 {
				v.Items = p.itemSlab.take(p.items[base:], p.slabSize())
			}
			p.items = p.items[:base]
			return nil
		default:
			return p.errf("expected ',' or ']' in array")
		}
	}
}

func (p *parser) object(v *Value, depth int) error {
	if err := p.enter(depth); err != nil {
		return err
	}
	v.Kind = Object
	p.i++ // {
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return nil
	}
	var seen map[string]struct{} // built only for large objects
	base := len(p.members)
	// The root object of a shallow read, handed out a member at a time.
	each := p.shallow && depth == p.opt.Depth+1 && p.opt.EachMember != nil
	// Members of a value that is not kept are only collected to find
	// duplicate keys; in lenient mode they are not looked for there.
	unchecked := each || p.opt.Lenient && p.discard > 0
	// An error abandons the whole parse, so the scratch stack need not be
	// restored on error paths.
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return p.errf("expected a string key")
		}
		keyAt := p.i
		key, kflags, err := p.str()
		if err != nil {
			return err
		}
		if dup := !unchecked && p.isDuplicate(p.members[base:], key, &seen); dup {
			if !p.opt.Lenient {
				return &SyntaxError{Offset: keyAt, Msg: fmt.Sprintf("duplicate key %q", key)}
			}
			v.Flags |= DuplicateKey
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return p.errf("expected ':' after object key")
		}
		p.i++
		p.skipSpace()
		skip := depth == p.opt.Depth+1 && (p.shallow || p.opt.Discard != "" && key == p.opt.Discard) ||
			p.inStream && depth == p.opt.Depth+3 && slices.Contains(p.opt.StreamShallow, key) && p.longerThan(ShallowOver)
		if skip {
			p.discard++
		}
		val, err := p.value(depth)
		if err != nil {
			return err
		}
		if skip {
			p.discard--
		}
		v.Flags |= kflags | val.Flags
		if each {
			p.cb = val
			if err := p.opt.EachMember(key, kflags, &p.cb); err != nil {
				return err
			}
			p.cb = Value{}
		} else if !unchecked {
			p.members = append(p.members, Member{Key: key, Value: val})
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return p.errf("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case '}':
			p.i++
			if p.discard == 0 {
				v.Members = p.memberSlab.take(p.members[base:], p.slabSize())
			}
			p.members = p.members[:base]
			return nil
		default:
			return p.errf("expected ',' or '}' in object")
		}
	}
}

// ShallowOver is the length in bytes past which a StreamShallow member is
// kept without its children.
const ShallowOver = 64 << 10

// longerThan reports whether the value starting at p.i spans more than n
// bytes, by matching brackets outside strings. Only the choice of what to
// keep depends on it: text it misjudges is still read, and refused, in full.
func (p *parser) longerThan(n int) bool {
	s := p.s[p.i:]
	if len(s) <= n || (s[0] != '{' && s[0] != '[') {
		return false
	}
	depth, inStr := 0, false
	for i := 0; i < len(s) && i <= n; i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return false
			}
		}
	}
	return true
}

// isDuplicate compares linearly while the object is small and switches to a
// set past 16 keys, so a 100,000-key object costs linear time, not quadratic.
func (p *parser) isDuplicate(members []Member, key string, seen *map[string]struct{}) bool {
	const linear = 16
	if len(members) < linear {
		for i := range members {
			if members[i].Key == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*len(members))
		for i := range members {
			(*seen)[members[i].Key] = struct{}{}
		}
	}
	if _, ok := (*seen)[key]; ok {
		return true
	}
	(*seen)[key] = struct{}{}
	return false
}

func (p *parser) number() (string, error) {
	start := p.i
	s := p.s
	if p.i < len(s) && s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(s) && s[p.i] == '0':
		p.i++
	case p.i < len(s) && s[p.i] >= '1' && s[p.i] <= '9':
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	default:
		return "", p.errf("invalid number")
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		if !p.digits() {
			return "", p.errf("invalid number: no digit after '.'")
		}
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return "", p.errf("invalid number: no digit in exponent")
		}
	}
	return s[start:p.i], nil
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads a string starting at the opening quote. Escape-free strings are
// returned as a slice of the input, without copying.
func (p *parser) str() (string, Flags, error) {
	p.i++ // opening quote
	start := p.i
	s := p.s
	for p.i < len(s) {
		// Runs of plain ASCII, the bulk of any record, in a tight loop.
		for p.i < len(s) && plainASCII[s[p.i]] {
			p.i++
		}
		if p.i >= len(s) {
			break
		}
		c := s[p.i]
		switch {
		case c == '"':
			out := s[start:p.i]
			p.i++
			return out, 0, nil
		case c == '\\':
			return p.strEscaped(start)
		case c < 0x20:
			if p.opt.Lenient {
				return p.strEscaped(start) // it flags and keeps the character
			}
			return "", 0, p.errf("control character in string")
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(s[p.i:])
			if r == utf8.RuneError && size == 1 {
				if p.opt.Lenient {
					return p.strEscaped(start) // it flags and replaces the byte
				}
				return "", 0, p.errf("invalid UTF-8")
			}
			p.i += size
		}
	}
	return "", 0, p.errf("unterminated string")
}

// strEscaped continues a string that holds at least one escape.
func (p *parser) strEscaped(start int) (string, Flags, error) {
	s := p.s
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, s[start:p.i]...)
	var flags Flags
	for p.i < len(s) {
		c := s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), flags, nil
		case c == '\\':
			if p.i+1 >= len(s) {
				return "", 0, p.errf("unterminated escape")
			}
			e := s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, lone, err := p.unicodeEscape()
				if err != nil {
					return "", 0, err
				}
				if lone {
					if !p.opt.Lenient {
						return "", 0, p.errf("lone surrogate escape")
					}
					flags |= LoneSurrogate
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.i -= 2
				return "", 0, p.errf("invalid escape")
			}
		case c < 0x20:
			if !p.opt.Lenient {
				return "", 0, p.errf("control character in string")
			}
			flags |= BadText
			buf = append(buf, c)
			p.i++
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, size := utf8.DecodeRuneInString(s[p.i:])
			if r == utf8.RuneError && size == 1 {
				if !p.opt.Lenient {
					return "", 0, p.errf("invalid UTF-8")
				}
				flags |= BadText
				buf = utf8.AppendRune(buf, utf8.RuneError)
				p.i++
				continue
			}
			buf = append(buf, s[p.i:p.i+size]...)
			p.i += size
		}
	}
	return "", 0, p.errf("unterminated string")
}

// unicodeEscape reads the XXXX of \uXXXX (p.i just past the 'u') and, for a
// high surrogate, the low surrogate escape that must follow. lone reports a
// surrogate outside a valid pair; it comes back as U+FFFD.
func (p *parser) unicodeEscape() (r rune, lone bool, err error) {
	u, ok := hex4(p.s, p.i)
	if !ok {
		return 0, false, p.errf("invalid \\u escape")
	}
	p.i += 4
	switch {
	case u < 0xD800 || u > 0xDFFF:
		return u, false, nil
	case u >= 0xDC00:
		return utf8.RuneError, true, nil
	}
	if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
		lo, ok := hex4(p.s, p.i+2)
		if !ok {
			p.i += 2
			return 0, false, p.errf("invalid \\u escape")
		}
		if lo >= 0xDC00 && lo <= 0xDFFF {
			p.i += 6
			return utf16.DecodeRune(u, lo), false, nil
		}
	}
	return utf8.RuneError, true, nil
}

// plainASCII marks the bytes a string may hold as they are: printable
// ASCII other than '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
