package strictjson

import (
	"bytes"
	"strconv"
)

// ParseLines reads data as JSON Lines: one JSON text per line, lines
// separated by '\n', an empty final line allowed. It calls each with the
// line's number (from 1), its value and its bytes. One reader serves every
// line and reuses its memory: each must not keep v or anything inside it.
// A syntax error is a *SyntaxError whose Offset counts from the start of
// its line, wrapped in a *LineError.
func ParseLines(data []byte, opt Options, each func(line int, v *Value, text []byte) error) error {
	var p parser
	p.opt = opt
	// Blocks of up to 256 values, whatever the line's length: each line's
	// values are let go (rewind) and the block reused for the next, where
	// a block sized for one short line was outgrown, and a new one made,
	// on nearly every line.
	p.input = min(len(data), 256*64)
	for n := 1; len(data) > 0; n++ {
		text, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		p.s, p.i = unsafeString(text), 0
		m := p.mark()
		p.skipSpace()
		v, err := p.value(opt.Depth)
		if err == nil {
			err = p.end()
		}
		if err != nil {
			return &LineError{Line: n, Err: err}
		}
		if err := each(n, &v, text); err != nil {
			return err
		}
		p.rewind(m)
	}
	return nil
}

// LineError is a syntax error on one line of JSON Lines.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error() }

func (e *LineError) Unwrap() error { return e.Err }
