package evidence

import (
	"encoding/json"
	"io"

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
	raw, err := Scan(Files(path))
	if err != nil {
		return nil, err
	}
	return Check(steps, events, raw)
}

// WriteJSON writes the report as logbook-verify --evidence --json does:
// recordId, ok (the verdict: Refusal under allow is nil), code and detail
// (the refusal's, null when ok), complete (every recorded body found and
// matched) and the report.
func WriteJSON(w io.Writer, recordID string, rep *Report, allow Allow) error {
	out := struct {
		RecordID string  `json:"recordId"`
		OK       bool    `json:"ok"`
		Code     *string `json:"code"`
		Detail   *string `json:"detail"`
		Complete bool    `json:"complete"`
		Evidence *Report `json:"evidence"`
	}{RecordID: recordID, OK: true, Complete: rep.Complete(), Evidence: rep}
	if ref := rep.Refusal(allow); ref != nil {
		code := string(ref.Code)
		out.OK, out.Code, out.Detail = false, &code, &ref.Detail
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
