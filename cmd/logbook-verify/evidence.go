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
// digests. Exit status: 0 when the record is accepted and every body the
// record has is in the transcript, unchanged and in order (absent ones are
// allowed with --allow-absent); 1 when the record is refused or the
// evidence fails; 2 on a usage or I/O error.
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
	if asJSON {
		_ = evidence.WriteJSON(stdout, out.Result.RecordID, rep, ex.allowAbsent)
	} else {
		verdict.WriteHuman(stdout, out)
		evidence.WriteHuman(stdout, rep, ex.showBodies, ex.allowAbsent)
	}
	if rep.Failed(ex.allowAbsent) {
		return 1
	}
	return 0
}
