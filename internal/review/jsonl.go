package review

import (
	"bufio"
	"bytes"
	"io"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// WriteJSONL writes a record's steps (or an in-progress file's) as JSON
// Lines for log pipelines: one object a line, {"recordId", "sessionId",
// "step"}, where step is the step's canonical form (RFC 8785), so a
// consumer can recompute its hash. recordId is "" for a session in
// progress.
func WriteJSONL(w io.Writer, data []byte, inProgress bool, recordID, sessionID string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	prefix := func() []byte {
		var b jcs.Buffer
		b.B = append(b.B, `{"recordId":`...)
		b.AppendString(recordID)
		b.B = append(b.B, `,"sessionId":`...)
		b.AppendString(sessionID)
		b.B = append(b.B, `,"step":`...)
		return b.B
	}()
	var b jcs.Buffer
	each := func(v *strictjson.Value) error {
		b.B = append(b.B[:0], prefix...)
		if err := b.Append(v); err != nil {
			return err
		}
		b.B = append(b.B, '}', '\n')
		_, err := bw.Write(b.B)
		return err
	}
	var err error
	if inProgress {
		_, rest, _ := bytes.Cut(data, []byte("\n"))
		for _, line := range bytes.Split(rest, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			v, perr := strictjson.Parse(line, strictjson.Options{MaxDepth: maxDepth})
			if perr != nil {
				break // a cut last line: what came before is written
			}
			if err = each(v); err != nil {
				break
			}
		}
	} else {
		_, err = strictjson.Parse(data, strictjson.Options{MaxDepth: maxDepth, Discard: "steps", Stream: func(_ int, v *strictjson.Value) error { return each(v) }})
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}
