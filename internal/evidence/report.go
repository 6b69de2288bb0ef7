package evidence

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/transcript"
)

// CheckRecord checks the transcript at path (sub-agent transcripts beside
// it are read too) against the steps of a record, verified by the caller.
// An error naming the record is wrapped in RecordError.
func CheckRecord(record []byte, path string) (*Report, error) {
	_, steps, err := review.ReadRecord(record)
	if err != nil {
		return nil, &RecordError{err}
	}
	return CheckFile(steps, path)
}

// RecordError is a record CheckRecord could not read (not the transcript).
type RecordError struct{ Err error }

func (e *RecordError) Error() string { return e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

// CheckFile checks the transcript at path (sub-agent transcripts beside it
// are read too) against a record's steps.
func CheckFile(steps []review.Step, path string) (*Report, error) {
	events, _, err := transcript.ConvertFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := RawBodies(Files(path))
	if err != nil {
		return nil, err
	}
	return Check(steps, events, raw...)
}

// WriteJSON writes the report as logbook-verify --evidence --json does:
// recordId, ok (nothing differs), complete (nothing absent either) and
// the report.
func WriteJSON(w io.Writer, recordID string, rep *Report) error {
	out := struct {
		RecordID string  `json:"recordId"`
		OK       bool    `json:"ok"`
		Complete bool    `json:"complete"`
		Evidence *Report `json:"evidence"`
	}{recordID, rep.OK(), rep.Complete(), rep}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteHuman writes a line per call or body, then the summary; show is
// "differs" or "all" to print those bodies' text as well (cleaned of
// terminal controls), "" for none.
func WriteHuman(w io.Writer, rep *Report, show string) {
	for _, it := range rep.Items {
		name := it.What
		if it.What == "call" {
			name = "call " + review.Clean(it.Tool) + " " + review.Clean(it.ToolUseID)
		}
		var parts []string
		for _, b := range it.Bodies {
			p := b.Role + " " + b.Status
			if b.Note != "" {
				p += " (" + b.Note + ")"
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(w, "%-8s %s: %s\n", it.Status, name, strings.Join(parts, ", "))
		if show == "all" || (show == "differs" && it.Status != Matched) {
			for _, b := range it.Bodies {
				if t := b.BodyText(); t != nil && (show == "all" || b.Status != Matched) {
					fmt.Fprintf(w, "    transcript %s (seq %d): %s\n", b.Role, b.Seq, review.Clean(string(t)))
				}
			}
		}
	}
	var keys []string
	for _, what := range []string{"calls", "prompts", "final messages", "sub-agent final messages"} {
		m, d, a := rep.Summary[what+" "+Matched], rep.Summary[what+" "+Differs], rep.Summary[what+" "+Absent]
		if m+d+a > 0 {
			keys = append(keys, fmt.Sprintf("%s: %d matched, %d differs, %d absent", what, m, d, a))
		}
	}
	other := 0
	for k, n := range rep.Summary {
		if !strings.HasPrefix(k, "calls ") && !strings.HasPrefix(k, "prompts ") && !strings.HasPrefix(k, "final messages ") && !strings.HasPrefix(k, "sub-agent final messages ") {
			other += n
		}
	}
	if other > 0 {
		keys = append(keys, fmt.Sprintf("other bodies: %d", other))
	}
	verdict := "EVIDENCE MATCHES"
	switch {
	case !rep.OK():
		verdict = "EVIDENCE DIFFERS"
	case !rep.Complete():
		verdict = "EVIDENCE MATCHES WHERE PRESENT (some bodies absent)"
	}
	fmt.Fprintf(w, "%s: %s; transcript calls the record does not name: %d\n", verdict, strings.Join(keys, "; "), len(rep.NotRecorded))
}
