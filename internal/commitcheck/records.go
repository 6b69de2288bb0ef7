package commitcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/verdict"
)

// rec is what a range check keeps of one record of the folder: its
// verdict and what it names, never its bytes.
type rec struct {
	file     string
	out      verdict.Outcome
	session  string
	tip      string           // the last step's hash
	byCommit map[string]int64 // commit id → the step naming it
	byPatch  map[string]int64 // patch id → the step naming a commit with it
	steps    map[int64]string // step → the commit it names
}

// index is every record of the folder by record id, and the accepted
// ones' commits and patch ids, for commits that carry no note.
type index struct {
	// unnamed are the record files refused before their id was known
	// (a step edited, the chain broken): "FILE (CODE)", for the detail
	// of a RECORD_MISSING that may be one of them.
	unnamed  []string
	byID     map[string]*rec
	byCommit map[string]*rec
	byPatch  map[string]*rec
	// bySession: the accepted records by session id, for a commit
	// whose trailer names one.
	bySession map[string]*rec
	// refused: the refused records whose id and session are known, by
	// session: a note naming a record the folder lacks, beside one of its
	// session's that is refused (re-signed by another key, …), gets that
	// record's own code.
	refused map[string]*rec
}

// readRecords verifies every *.json file of dir that is a record, one at
// a time (each read under readlimit.Record), through load's inputs and
// internal/verdict: the same verdict logbook-verify RECORD gives.
func readRecords(dir string, load func(path string) (verdict.Inputs, error)) (*index, error) {
	ix := &index{byID: map[string]*rec{}, byCommit: map[string]*rec{}, byPatch: map[string]*rec{}, bySession: map[string]*rec{}, refused: map[string]*rec{}}
	if dir == "" {
		return ix, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--records %s: %w", dir, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("--records %s: not a directory", dir)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := readlimit.Large(f, readlimit.Record)
		if err != nil {
			return nil, err
		}
		if !format.IsRecord(data) {
			continue
		}
		in, err := load(f)
		if err != nil {
			return nil, err
		}
		var c gitbind.Collect
		in.Record, in.Top, in.EachStep = data, c.Top, c.Each
		out := verdict.Run(in)
		c.Done()
		r := &rec{file: f, out: out, session: c.Session, tip: c.Tip, byCommit: map[string]int64{}, byPatch: map[string]int64{}, steps: map[int64]string{}}
		for _, n := range c.Named {
			r.byCommit[n.Commit] = n.Step
			r.steps[n.Step] = n.Commit
			if n.PatchID != "" {
				r.byPatch[n.PatchID] = n.Step
			}
		}
		id := out.Result.RecordID
		if id == "" {
			// Refused before its signature: no id, it names nothing.
			ix.unnamed = append(ix.unnamed, fmt.Sprintf("%s (%s)", filepath.Base(f), out.Result.Code))
			continue
		}
		if prev, dup := ix.byID[id]; dup && prev.out.Result.OK {
			continue
		}
		ix.byID[id] = r
		if !out.Result.OK {
			ix.refused[r.session] = r
			continue
		}
		ix.bySession[r.session] = r
		for c := range r.byCommit {
			ix.byCommit[c] = r
		}
		for p := range r.byPatch {
			ix.byPatch[p] = r
		}
	}
	return ix, nil
}

// policyOf is the policy digests an accepted record's gate steps name,
// "none" without a --policy-key check.
func policyOf(o verdict.Outcome) string {
	if o.Gate == nil || len(o.Gate.Policies) == 0 {
		return "none"
	}
	return strings.Join(o.Gate.Policies, ",")
}
