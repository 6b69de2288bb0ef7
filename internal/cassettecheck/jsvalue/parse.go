package jsvalue

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth bounds nesting. JSON.parse in V8 has no such limit, but runback's
// canonical() recurses and Node throws a RangeError somewhere in the low
// thousands of levels; the exact depth depends on the stack, so no reader
// can match it. Deeper input is refused with ErrDepth (docs/runback.md).
const MaxDepth = 1000

// What the reader tolerated, by code (see Report).
const (
	NoteDuplicateKey  = "DUPLICATE_KEY"    // {"a":1,"a":2}: the last value wins
	NoteLoneSurrogate = "LONE_SURROGATE"   // "\ud800" kept as one code unit
	NoteInvalidUTF8   = "INVALID_UTF8"     // bytes replaced by U+FFFD before parsing
	NoteOverflow      = "NUMBER_OVERFLOW"  // 1E400 became Infinity (hashed as null)
	NotePrecision     = "NUMBER_PRECISION" // an integer literal beyond 2^53 changed value
	NoteProtoKey      = "PROTO_KEY"        // an own "__proto__" member
)

// maxNotePaths caps the paths kept per code; Counts keeps counting.
const maxNotePaths = 20

// Report lists what the reader tolerated: for each code, how often and the
// first few places (as paths like events[2].request.messages[0]).
type Report struct {
	Counts map[string]int
	Paths  map[string][]string
}

func (r *Report) add(code, path string) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
		r.Paths = map[string][]string{}
	}
	r.Counts[code]++
	if len(r.Paths[code]) < maxNotePaths {
		r.Paths[code] = append(r.Paths[code], path)
	}
}

// SyntaxError is input JSON.parse would throw on.
type SyntaxError struct {
	Offset int // byte offset in the (UTF-8 decoded) input
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("JSON syntax error at offset %d: %s", e.Offset, e.Msg)
}

// ErrDepth is returned for input nested deeper than MaxDepth.
var ErrDepth = &SyntaxError{Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}

// Parse reads data as Node's readFileSync(path, "utf-8") followed by
// JSON.parse would. The returned strings may share memory with data, which
// must not change afterwards. A UTF-8 byte order mark is not skipped (Node
// keeps it and JSON.parse rejects it).
func Parse(data []byte) (*Value, *Report, error) { return ParseStream(data, nil) }

// Stream has ParseStream hand over the items of one top-level member's
// array one at a time instead of keeping them.
type Stream struct {
	Key string // the top-level member, e.g. "events"
	// Start is called each time the member's array begins: a duplicate
	// key starts it again, and the last one is what JSON.parse keeps.
	Start func()
	// Item receives each item, in order. It must not keep v or anything in
	// it (Clone what it keeps): the memory is reused.
	Item func(i int, v *Value) error
}

// ParseStream is Parse with the items of the top-level member s.Key, when
// it is an array, handed to s.Item and not kept: the member's value is an
// empty array in the result. s may be nil.
func ParseStream(data []byte, s *Stream) (*Value, *Report, error) {
	rep := &Report{}
	if !utf8.Valid(data) {
		data = DecodeUTF8(data)
		rep.add(NoteInvalidUTF8, "")
	}
	p := parser{s: data, rep: rep, stream: s, maxValues: len(data)/BytesPerValue + minValues}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, rep, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, rep, p.errf("unexpected data after the value")
	}
	return &v, rep, nil
}

// DecodeUTF8 decodes bytes as the WHATWG Encoding Standard's UTF-8 decoder
// does (Node's Buffer.toString and the browser's TextDecoder): each maximal
// invalid subsequence becomes one U+FFFD.
func DecodeUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	var cp rune
	need, seen := 0, 0
	lower, upper := byte(0x80), byte(0xBF)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if need == 0 {
			switch {
			case c < 0x80:
				out = append(out, c)
			case c >= 0xC2 && c <= 0xDF:
				need, cp = 1, rune(c&0x1F)
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					lower = 0xA0
				} else if c == 0xED {
					upper = 0x9F
				}
				need, cp = 2, rune(c&0xF)
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					lower = 0x90
				} else if c == 0xF4 {
					upper = 0x8F
				}
				need, cp = 3, rune(c&7)
			default:
				out = utf8.AppendRune(out, utf8.RuneError)
			}
			continue
		}
		if c < lower || c > upper {
			need, seen, cp, lower, upper = 0, 0, 0, 0x80, 0xBF
			out = utf8.AppendRune(out, utf8.RuneError)
			i-- // the byte starts over
			continue
		}
		lower, upper = 0x80, 0xBF
		cp = cp<<6 | rune(c&0x3F)
		seen++
		if seen == need {
			out = utf8.AppendRune(out, cp)
			need, seen, cp = 0, 0, 0
		}
	}
	if need != 0 {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out
}

type seg struct {
	key   string
	index int // -1: key
}

type parser struct {
	s      []byte
	i      int
	rep    *Report
	path   []seg
	buf    []byte
	stream *Stream
	// values counts the values and keys read so far; past maxValues the
	// reader stops (ErrTooManyValues).
	values, maxValues int
	items             stack[Value]
	members           stack[Member]
}

// BytesPerValue sets the value budget: a document may hold one value (or
// object key) per BytesPerValue bytes of its text, plus minValues. Each
// value takes 80 bytes in memory, so a text made of the smallest values
// ([1,1,1,…], 2 bytes each) would otherwise take about 40 times its size
// once read (and 200 times in allocations). Real cassettes hold one value
// per 25 bytes or more; an array of floats one per 10-20.
const BytesPerValue = 12

const minValues = 1 << 10

// ErrTooManyValues is returned for a text holding more values than the
// budget (BytesPerValue) allows.
var ErrTooManyValues = &SyntaxError{Msg: fmt.Sprintf("more than one value per %d bytes of text: too many to hold in memory", BytesPerValue)}

// count charges one value or key to the budget.
func (p *parser) count() error {
	p.values++
	if p.values > p.maxValues {
		return ErrTooManyValues
	}
	return nil
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) note(code string) { p.rep.add(code, PathString(p.path)) }

// PathString renders a path of keys and indexes: events[2].request["a b"].
func PathString(path []seg) string {
	var b []byte
	for _, s := range path {
		if s.index >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		if isIdent(s.key) {
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, s.key...)
		} else {
			b = append(b, '[')
			b = AppendString(b, s.key)
			b = append(b, ']')
		}
	}
	return string(b)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (p *parser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.i >= len(p.s) {
		return Value{}, p.errf("unexpected end of input")
	}
	if err := p.count(); err != nil {
		return Value{}, err
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Str: s}, err
	case c == 't':
		return Value{Kind: Bool, Bool: true}, p.lit("true")
	case c == 'f':
		return Value{Kind: Bool}, p.lit("false")
	case c == 'n':
		return Value{Kind: Null}, p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return Value{}, p.errf("unexpected character %q", p.s[p.i])
}

func (p *parser) lit(w string) error {
	if len(p.s)-p.i < len(w) || string(p.s[p.i:p.i+len(w)]) != w {
		return p.errf("invalid literal")
	}
	p.i += len(w)
	return nil
}

func (p *parser) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, ErrDepth
	}
	p.i++ // [
	v := Value{Kind: Array}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		v.Items = []Value{}
		return v, nil
	}
	p.path = append(p.path, seg{})
	defer func() { p.path = p.path[:len(p.path)-1] }()
	base := p.items.n
	for {
		p.path[len(p.path)-1] = seg{index: p.items.n - base}
		p.ws()
		item, err := p.value(depth)
		if err != nil {
			p.items.drop(base)
			return v, err
		}
		p.items.push(item)
		p.ws()
		if p.i >= len(p.s) {
			p.items.drop(base)
			return v, p.errf("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			v.Items = p.items.popFrom(base)
			return v, nil
		default:
			p.items.drop(base)
			return v, p.errf("expected , or ] in array")
		}
	}
}

// streamArray is array for the streamed member: each item goes to
// Stream.Item and is dropped.
func (p *parser) streamArray(depth int) (Value, error) {
	p.i++ // [
	if p.stream.Start != nil {
		p.stream.Start()
	}
	v := Value{Kind: Array, Items: []Value{}}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	p.path = append(p.path, seg{})
	defer func() { p.path = p.path[:len(p.path)-1] }()
	for n := 0; ; n++ {
		p.path[len(p.path)-1] = seg{index: n}
		p.ws()
		item, err := p.value(depth)
		if err != nil {
			return v, err
		}
		if err := p.stream.Item(n, &item); err != nil {
			return v, err
		}
		p.ws()
		if p.i >= len(p.s) {
			return v, p.errf("unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return v, p.errf("expected , or ] in array")
		}
	}
}

// dupIndex is used for objects with many members, where a linear scan for
// duplicates would be quadratic.
const dupIndex = 16

func (p *parser) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, ErrDepth
	}
	p.i++ // {
	v := Value{Kind: Object}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		v.Members = []Member{}
		return v, nil
	}
	var index map[string]int
	p.path = append(p.path, seg{})
	defer func() { p.path = p.path[:len(p.path)-1] }()
	base := p.members.n
	defer func() { p.members.drop(base) }() // after an error; a no-op once popped
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return v, p.errf("expected a string key")
		}
		key, err := p.str()
		if err != nil {
			return v, err
		}
		if err := p.count(); err != nil {
			return v, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return v, p.errf("expected : after key")
		}
		p.i++
		p.ws()
		p.path[len(p.path)-1] = seg{key: key, index: -1}
		if key == "__proto__" {
			p.note(NoteProtoKey)
		}
		var val Value
		if depth == 1 && p.stream != nil && key == p.stream.Key && p.i < len(p.s) && p.s[p.i] == '[' {
			val, err = p.streamArray(depth + 1)
		} else {
			val, err = p.value(depth)
		}
		if err != nil {
			return v, err
		}
		at := -1
		if index != nil {
			if j, ok := index[key]; ok {
				at = j
			}
		} else {
			for j := base; j < p.members.n; j++ {
				if p.members.at(j).Key == key {
					at = j - base
					break
				}
			}
		}
		if at >= 0 {
			p.note(NoteDuplicateKey)
			p.members.at(base + at).Value = val
		} else {
			p.members.push(Member{key, val})
			if n := p.members.n - base; index != nil {
				index[key] = n - 1
			} else if n > dupIndex {
				index = make(map[string]int, 2*n)
				for j := base; j < p.members.n; j++ {
					index[p.members.at(j).Key] = j - base
				}
			}
		}
		p.ws()
		if p.i >= len(p.s) {
			return v, p.errf("unterminated object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			v.Members = p.members.popFrom(base)
			return v, nil
		default:
			return v, p.errf("expected , or } in object")
		}
	}
}

func (p *parser) number() (Value, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if !p.digits() {
		return Value{}, p.errf("invalid number")
	}
	intDigits := p.i - intStart
	plain := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		plain = false
		if !p.digits() {
			return Value{}, p.errf("invalid number: no digit after the point")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		plain = false
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return Value{}, p.errf("invalid number: no digit in the exponent")
		}
	}
	lit := p.s[start:p.i]
	if plain && intDigits <= 15 {
		var n int64
		for _, c := range lit[intStart-start:] {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if lit[0] == '-' {
			f = -f
		}
		return Value{Kind: Number, Num: f}, nil
	}
	f, err := strconv.ParseFloat(unsafe.String(&lit[0], len(lit)), 64)
	if math.IsInf(f, 0) {
		p.note(NoteOverflow)
	} else if err != nil {
		// Underflow to zero or a denormal: JSON.parse gives the same
		// rounded value ParseFloat returns alongside the error.
		_ = err
	}
	if plain && !math.IsInf(f, 0) && FormatNumber(f) != string(lit) && !(f == 0 && string(lit) == "-0") {
		p.note(NotePrecision)
	}
	return Value{Kind: Number, Num: f}, nil
}

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

func (p *parser) str() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			if len(s) == 0 {
				return "", nil
			}
			return unsafe.String(&s[0], len(s)), nil
		case c == '\\':
			return p.strEscaped(start)
		case c < 0x20:
			return "", p.errf("control character in string")
		}
		p.i++
	}
	return "", p.errf("unterminated string")
}

func (p *parser) strEscaped(start int) (string, error) {
	b := append(p.buf[:0], p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = b
			return string(b), nil
		case c < 0x20:
			return "", p.errf("control character in string")
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.s) {
			break
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			u, ok := p.hex4()
			if !ok {
				return "", p.errf("invalid \\u escape")
			}
			if u >= 0xD800 && u <= 0xDBFF && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				if lo, ok := p.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					b = utf8.AppendRune(b, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
					continue
				}
				p.i = save
			}
			if u >= 0xD800 && u <= 0xDFFF {
				p.note(NoteLoneSurrogate)
				b = appendSurrogate(b, u)
			} else {
				b = utf8.AppendRune(b, u)
			}
		default:
			return "", p.errf("invalid escape \\%c", e)
		}
	}
	return "", p.errf("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for _, c := range p.s[p.i : p.i+4] {
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
	p.i += 4
	return r, true
}

// appendSurrogate writes a lone surrogate code unit in WTF-8.
func appendSurrogate(b []byte, u rune) []byte {
	return append(b, 0xED, byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
}
