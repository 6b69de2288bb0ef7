package journalfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// streamChunk is how much of the file Stream reads at once; a longer line
// grows the buffer to hold it.
const streamChunk = 1 << 20

// Stream is ReadAll without holding the steps: it makes the same checks
// (each step parses, has the next seq, links to the previous hash and
// hashes to what it says), calls each (may be nil) with every parsed step,
// and writes the canonical steps array ReadAll would return in
// Steps.JSON ("[step,step,…]", the same bytes) to out (may be nil). The
// Steps it returns has no JSON. Memory is a chunk of the file and its
// longest line, whatever the session's length (issue 22).
//
// each must not keep step or any string in it: they point into a buffer
// that is reused for the next lines. Call Repair first to cut a torn tail.
func (j *Journal) Stream(each func(i int, step *strictjson.Value) error, out io.Writer) (Header, Steps, error) {
	var h Header
	var res Steps
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return h, res, err
	}
	var w chain.Walker
	buf := make([]byte, 0, streamChunk)
	lineNo := 0 // lines handed to the parser so far, the header included
	header := true
	put := func(b []byte) error {
		if out == nil {
			return nil
		}
		_, err := out.Write(b)
		return err
	}
	if err := put([]byte{'['}); err != nil {
		return h, res, err
	}
	// lines parses the complete lines in text.
	lines := func(text []byte) error {
		if header {
			first, rest, _ := bytes.Cut(text, []byte("\n"))
			var err error
			// A copy: the header's strings point into the text it is
			// read from, and this buffer is reused.
			if h, err = parseHeader(bytes.Clone(first)); err != nil {
				return fmt.Errorf("%s: %v", j.f.Name(), err)
			}
			header = false
			lineNo = 1
			text = rest
		}
		base := lineNo
		err := strictjson.ParseLines(text, strictjson.Options{MaxDepth: format.MaxDepth}, func(n int, v *strictjson.Value, _ []byte) error {
			lineNo = base + n
			w.B = w.B[:0]
			if w.Count() > 0 {
				w.B = append(w.B, ',')
			}
			if err := w.Step(v); err != nil {
				return fmt.Errorf("line %d: %w", lineNo, err)
			}
			if each != nil {
				if err := each(int(w.Count()-1), v); err != nil {
					return err
				}
			}
			return put(w.B)
		})
		var le *strictjson.LineError
		if errors.As(err, &le) {
			// ParseLines counts from the chunk's first line.
			err = &strictjson.LineError{Line: base + le.Line - 1, Err: le.Err}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", j.f.Name(), err)
		}
		return nil
	}
	empty := true
	for {
		n, rerr := j.f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if n > 0 {
			empty = false
		}
		if rerr != nil && rerr != io.EOF {
			return h, res, rerr
		}
		eof := rerr == io.EOF
		cut := bytes.LastIndexByte(buf, '\n') + 1
		if eof {
			cut = len(buf) // a last line without its newline is still a line
		}
		if cut > 0 {
			if err := lines(buf[:cut]); err != nil {
				res.Count, res.LastHash = int(w.Count()), w.Tip()
				return h, res, err
			}
			buf = buf[:copy(buf, buf[cut:])]
		}
		if eof {
			break
		}
		if len(buf) == cap(buf) {
			// A line longer than the buffer: room for it.
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
	}
	if empty {
		return h, res, fmt.Errorf("%s is empty: no steps recorded for session %s", j.f.Name(), j.Session)
	}
	if header {
		// Only a header line without its newline, or nothing parsed.
		return h, res, fmt.Errorf("%s: first line is not an in-progress header", j.f.Name())
	}
	res.Count, res.LastHash = int(w.Count()), w.Tip()
	return h, res, put([]byte{']'})
}
