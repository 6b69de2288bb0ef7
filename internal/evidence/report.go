package evidence

import (
	"encoding/json"
	"io"

	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/transcript"
)

// CheckFile checks the transcript at path (sub-agent transcripts beside it
// are read too) against a record's steps.
func CheckFile(steps []review.Step, path string) (*Report, error) {
	events, _, err := transcript.ConvertFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := Scan(Files(path))
	if err != nil {
		return nil, err
	}
	return Check(steps, events, raw)
}

// WriteJSON writes the report as logbook-verify --evidence --json does:
// recordId, ok (the verdict: nothing differs or moved, nothing absent
// unless allowAbsent), complete (every recorded body found and matched)
// and the report.
func WriteJSON(w io.Writer, recordID string, rep *Report, allowAbsent bool) error {
	out := struct {
		RecordID string  `json:"recordId"`
		OK       bool    `json:"ok"`
		Complete bool    `json:"complete"`
		Evidence *Report `json:"evidence"`
	}{recordID, !rep.Failed(allowAbsent), rep.Complete(), rep}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
