package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/evidence"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/record"
)

// runEvidence verifies the record, then checks the transcript against its
// digests. Exit status: 0 when the record is accepted and every body the
// record has is in the transcript, unchanged and in order (absent ones are
// allowed with --allow-absent); 1 when the record is refused or the
// evidence fails; 2 on a usage or I/O error.
func runEvidence(path string, ex extraFlags, pubkeys cli.List, asJSON bool, stdout, stderr io.Writer) int {
	if ex.showBodies != "" && ex.showBodies != "differs" && ex.showBodies != "all" {
		fmt.Fprintf(stderr, "logbook-verify: --show-bodies %q: want differs or all\n", ex.showBodies)
		return 2
	}
	var opt record.Options
	var err error
	if opt.Pinned, err = keys.ReadPublicFiles("--pubkey", pubkeys); err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	data, err := readInput(path, maxRecord)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	res := record.Verify(data, opt)
	if !res.OK {
		if asJSON {
			printJSON(stdout, "", res, len(opt.Pinned) > 0, policy.Report{})
		} else {
			printHuman(stdout, res, len(opt.Pinned) > 0, policy.Report{})
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
		_ = evidence.WriteJSON(stdout, res.RecordID, rep, ex.allowAbsent)
	} else {
		printHuman(stdout, res, len(opt.Pinned) > 0, policy.Report{})
		evidence.WriteHuman(stdout, rep, ex.showBodies, ex.allowAbsent)
	}
	if rep.Failed(ex.allowAbsent) {
		return 1
	}
	return 0
}
