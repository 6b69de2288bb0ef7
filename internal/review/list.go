package review

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/sealmark"
)

// Listed is one session of a directory, as --list shows it.
type Listed struct {
	ID      string `json:"id"`
	State   string `json:"state"` // "sealed", "in progress", or "sealed, N steps after the seal"
	Steps   int    `json:"steps"` // the in-progress file's, else the record's
	Sealed  int    `json:"sealedSteps"`
	Start   string `json:"start,omitempty"`
	End     string `json:"end,omitempty"`
	Verdict string `json:"verdict,omitempty"` // the record's: OK or the refusal code
	Record  string `json:"record,omitempty"`
	// Elsewhere is the record's path when it was sealed outside the
	// directory (logbook-seal --out: the DIR/ID.sealed mark names it).
	Elsewhere  string `json:"recordElsewhere,omitempty"`
	markSteps  int    // the steps the mark says were sealed
	InProgress string `json:"inProgress,omitempty"`
}

// List reads a session directory: every ID.steps.jsonl and *.record.json.
// Records are verified (pinned to keys when given); in-progress files
// have their chains checked.
func List(dir string, opt record.Options) ([]Listed, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	by := map[string]*Listed{}
	get := func(id string) *Listed {
		if by[id] == nil {
			by[id] = &Listed{ID: id}
		}
		return by[id]
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, name)
		switch {
		case strings.HasSuffix(name, ".steps.jsonl"):
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			l := get(strings.TrimSuffix(name, ".steps.jsonl"))
			l.InProgress = name
			_, steps, pr, err := ReadInProgress(data)
			if err != nil {
				l.Verdict = "unreadable: " + err.Error()
				continue
			}
			l.Steps = len(steps)
			if len(steps) > 0 {
				l.Start, l.End = steps[0].At, steps[len(steps)-1].At
			}
			if pr.Broken != "" {
				l.Verdict = "CHAIN_BROKEN in the in-progress file: " + pr.Broken
			}
		case strings.HasSuffix(name, sealmark.Suffix):
			id := strings.TrimSuffix(name, sealmark.Suffix)
			m, err := sealmark.Read(path)
			l := get(id)
			if err != nil {
				l.Elsewhere = "?"
				l.Verdict = "unreadable seal mark: " + err.Error()
				continue
			}
			l.Elsewhere, l.markSteps = m.Record, m.Steps
		case strings.HasSuffix(name, ".record.json"):
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			res := record.Verify(data, opt)
			ses, steps, rerr := ReadRecord(data)
			id := strings.TrimSuffix(name, ".record.json")
			if rerr == nil && ses.ID != "" && by[id] == nil {
				id = ses.ID
			}
			l := get(id)
			l.Record = name
			l.Sealed = len(steps)
			if l.Start == "" && len(steps) > 0 {
				l.Start, l.End = steps[0].At, steps[len(steps)-1].At
			}
			if res.OK {
				l.Verdict = "OK"
			} else if l.Verdict == "" || !strings.HasPrefix(l.Verdict, "CHAIN") {
				l.Verdict = string(res.Code)
			}
		}
	}
	// Sessions sealed elsewhere: their record is read where the mark
	// says, unless the directory holds one too.
	for _, l := range by {
		if l.Elsewhere == "" || l.Elsewhere == "?" || l.Record != "" {
			continue
		}
		data, err := os.ReadFile(l.Elsewhere)
		if err != nil {
			l.Record, l.Sealed = l.Elsewhere, l.markSteps
			l.Verdict = "record not readable"
			if errors.Is(err, fs.ErrNotExist) {
				l.Verdict = "record not found"
			}
			continue
		}
		res := record.Verify(data, opt)
		_, steps, _ := ReadRecord(data)
		l.Record = l.Elsewhere
		l.Sealed = len(steps)
		if l.Start == "" && len(steps) > 0 {
			l.Start, l.End = steps[0].At, steps[len(steps)-1].At
		}
		switch {
		case res.OK && l.Verdict == "":
			l.Verdict = "OK"
		case !res.OK && (l.Verdict == "" || !strings.HasPrefix(l.Verdict, "CHAIN")):
			l.Verdict = string(res.Code)
		}
	}
	var out []Listed
	for _, l := range by {
		switch {
		case l.Record == "" && l.Elsewhere == "?":
			l.State = "sealed elsewhere?"
		case l.Record == "":
			l.State = "in progress"
		case l.InProgress == "" || l.Steps <= l.Sealed:
			l.State = "sealed"
			if l.Steps < l.Sealed {
				l.Steps = l.Sealed
			}
		default:
			l.State = fmt.Sprintf("sealed, %d step(s) after the seal", l.Steps-l.Sealed)
		}
		if l.Elsewhere != "" && l.Record == l.Elsewhere {
			l.State += " (elsewhere)"
		}
		if l.InProgress == "" {
			l.Steps = l.Sealed
		}
		out = append(out, *l)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].End != out[b].End {
			return out[a].End > out[b].End // newest first
		}
		return out[a].ID < out[b].ID
	})
	return out, nil
}

// WriteList prints the sessions as a table.
func WriteList(w io.Writer, ls []Listed) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-38s %-32s %7s  %-30s %-30s %s\n", "SESSION", "STATE", "STEPS", "FIRST", "LAST", "CHECK")
	for _, l := range ls {
		check := Clean(l.Verdict)
		if l.Elsewhere != "" && l.Record == l.Elsewhere {
			check += "  record: " + Clean(l.Elsewhere)
		}
		fmt.Fprintf(&b, "%-38s %-32s %7d  %-30s %-30s %s\n", Clean(l.ID), l.State, l.Steps, l.Start, l.End, check)
	}
	_, err := w.Write(b.Bytes())
	return err
}
