package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/evidence"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// runEvidence verifies the record, then checks the transcript against its
// digests. Exit status: 0 when the record is accepted and the transcript
// is evidence of it (internal/evidence's Refusal is nil: every body the
// record has is in the transcript, unchanged and in order, and nothing
// the record never saw is; absent bodies are allowed with --allow-absent,
// results the record holds no digest of with --allow-unheld); 1 when the
// record is refused or the evidence is (an EVIDENCE_* code, on the first
// line); 2 on a usage or I/O error.
func runEvidence(path string, ex extraFlags, vf verdictflags.Flags, asJSON bool, stdout, stderr io.Writer) int {
	if ex.showBodies != "" && ex.showBodies != "differs" && ex.showBodies != "all" {
		fmt.Fprintf(stderr, "logbook-verify: --show-bodies %q: want differs or all\n", ex.showBodies)
		return 2
	}
	pinned, err := vf.Pinned()
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	data, err := readInput(path, maxRecord)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	out := verdict.RecordOnly(data, pinned)
	if !out.Result.OK {
		if asJSON {
			verdict.WriteJSON(stdout, out)
		} else {
			verdict.WriteHuman(stdout, out)
		}
		return 1
	}
	rep, err := evidence.CheckRecord(data, ex.evidence)
	var recErr *evidence.RecordError
	switch {
	case errors.As(err, &recErr):
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "logbook-verify: --evidence %s: %v\n", ex.evidence, err)
		return 2
	}
	allow := evidence.Allow{Absent: ex.allowAbsent, Unheld: ex.allowUnheld}
	ref := rep.Refusal(allow)
	if asJSON {
		_ = evidence.WriteJSON(stdout, out.Result.RecordID, rep, allow)
	} else {
		if ref != nil {
			// The verdict first, as for any refusal; the record's own
			// line (it verifies) follows.
			fmt.Fprintf(stdout, "REFUSED %s: %s; the record itself:\n", ref.Code, ref.Detail)
		}
		verdict.WriteHuman(stdout, out)
		evidence.WriteHuman(stdout, rep, ex.showBodies, allow)
	}
	if ref != nil {
		return 1
	}
	return 0
}
