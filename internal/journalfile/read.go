package journalfile

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Steps is what ReadAll returns: the steps as the canonical JSON array a
// record embeds, and what a sealer needs to know about them.
type Steps struct {
	JSON     []byte // "[step,step,…]", each step in RFC 8785 form
	Count    int
	LastHash string // "" when there are no steps
}

// ReadAll reads the header and every step, checking as it goes that each
// step parses, has the next seq, links to the previous hash and hashes to
// what it says: an in-progress file edited behind the recorder's back is an
// error, never sealed. each (may be nil) sees every parsed step; it must
// not keep it. Call Repair first to cut a torn tail.
func (j *Journal) ReadAll(each func(i int, step *strictjson.Value) error) (Header, Steps, error) {
	var h Header
	var out Steps
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return h, out, err
	}
	data, err := readFile(j.f)
	if err != nil {
		return h, out, err
	}
	if len(data) == 0 {
		return h, out, fmt.Errorf("%s is empty: no steps recorded for session %s", j.f.Name(), j.Session)
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if h, err = parseHeader(first); err != nil {
		return h, out, fmt.Errorf("%s: %v", j.f.Name(), err)
	}
	var w chain.Walker
	w.B = append(bigbuf.Alloc(len(rest)+2), '[')
	err = strictjson.ParseLines(rest, strictjson.Options{MaxDepth: format.MaxDepth}, func(n int, v *strictjson.Value, _ []byte) error {
		if w.Count() > 0 {
			w.B = append(w.B, ',')
		}
		if err := w.Step(v); err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
		if each != nil {
			if err := each(int(w.Count()-1), v); err != nil {
				return err
			}
		}
		return nil
	})
	out.Count, out.LastHash = int(w.Count()), w.Tip()
	if err != nil {
		return h, out, fmt.Errorf("%s: %w", j.f.Name(), err)
	}
	out.JSON = append(w.B, ']')
	return h, out, nil
}

// readFile reads the rest of f into one buffer sized from its length.
func readFile(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return bigbuf.ReadAll(f, st.Size())
}

func parseHeader(line []byte) (Header, error) {
	var h Header
	hv, err := strictjson.Parse(line, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil || hv.Get("format") == nil {
		return h, fmt.Errorf("first line is not an in-progress header")
	}
	if f, _ := hv.GetString("format"); f != format.Journal {
		return h, fmt.Errorf("unknown format %q", f)
	}
	h.Session, _ = hv.GetString("session")
	h.Cwd, _ = hv.GetString("cwd")
	h.Harness, _ = hv.GetString("harness")
	if r := hv.Get("recorder"); r != nil {
		h.Recorder = &format.Recorder{}
		var ok1, ok2, ok3 bool
		h.Recorder.Name, ok1 = r.GetString("name")
		h.Recorder.Version, ok2 = r.GetString("version")
		h.Recorder.SHA256, ok3 = r.GetString("sha256")
		if !ok1 || !ok2 || !ok3 || len(r.Members) != 3 {
			return h, fmt.Errorf("header recorder is not {name, version, sha256}")
		}
		if err := h.Recorder.Check(); err != nil {
			return h, err
		}
	}
	return h, nil
}
