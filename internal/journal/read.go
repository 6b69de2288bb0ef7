package journal

import (
	"bytes"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// ReadAll reads the header and every step, checking as it goes that each
// step parses, has the next seq, links to the previous hash and hashes to
// what it says; an in-progress file edited behind the recorder's back is an
// error, never sealed. Call Repair first to cut a torn tail.
func (j *Journal) ReadAll() (Header, []strictjson.Value, error) {
	var h Header
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return h, nil, err
	}
	data, err := io.ReadAll(j.f)
	if err != nil {
		return h, nil, err
	}
	if len(data) == 0 {
		return h, nil, fmt.Errorf("%s is empty: no steps recorded for session %s", j.f.Name(), j.Session)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	hv, err := strictjson.Parse(lines[0], strictjson.Options{MaxDepth: 64})
	if err != nil || hv.Get("format") == nil {
		return h, nil, fmt.Errorf("%s: first line is not an in-progress header", j.f.Name())
	}
	if f, _ := hv.GetString("format"); f != Format {
		return h, nil, fmt.Errorf("%s: unknown format %q", j.f.Name(), f)
	}
	h.Session, _ = hv.GetString("session")
	h.Cwd, _ = hv.GetString("cwd")
	h.Harness, _ = hv.GetString("harness")
	steps := make([]strictjson.Value, 0, len(lines)-1)
	var buf jcs.Buffer
	prev := ""
	for i, line := range lines[1:] {
		v, err := strictjson.Parse(line, strictjson.Options{MaxDepth: 64})
		if err != nil {
			return h, nil, fmt.Errorf("%s line %d: %v", j.f.Name(), i+2, err)
		}
		seq := v.Get("seq")
		if seq == nil || seq.Str != fmt.Sprint(i) {
			return h, nil, fmt.Errorf("%s line %d: seq is not %d", j.f.Name(), i+2, i)
		}
		p := v.Get("prev")
		if p == nil || (i == 0) != (p.Kind == strictjson.Null) || (i > 0 && p.Str != prev) {
			return h, nil, fmt.Errorf("%s line %d: prev does not link to step %d", j.f.Name(), i+2, i-1)
		}
		hash, err := chain.HashInto(&buf, v)
		if got, _ := v.GetString("hash"); err != nil || got != hash {
			return h, nil, fmt.Errorf("%s line %d: step %d does not hash to its hash", j.f.Name(), i+2, i)
		}
		prev = hash
		steps = append(steps, *v)
	}
	return h, steps, nil
}
