package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/evidence"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/transcript"
)

// runEvidence verifies the record, then checks the transcript against its
// digests. Exit status: 0 when the record is accepted and every body the
// record has is in the transcript, unchanged and in order (absent ones are
// allowed with --allow-absent); 1 when the record is refused or the
// evidence fails; 2 on a usage or I/O error.
func runEvidence(path string, ex extraFlags, pubkeys pubkeyFlag, asJSON bool, stdout, stderr io.Writer) int {
	if ex.showBodies != "" && ex.showBodies != "differs" && ex.showBodies != "all" {
		fmt.Fprintf(stderr, "logbook-verify: --show-bodies %q: want differs or all\n", ex.showBodies)
		return 2
	}
	var opt record.Options
	for _, f := range pubkeys {
		text, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-verify:", err)
			return 2
		}
		pub, err := keys.ParsePublicKeyPEM(text)
		if err != nil {
			fmt.Fprintf(stderr, "logbook-verify: --pubkey %s: %v\n", f, err)
			return 2
		}
		opt.Pinned = append(opt.Pinned, ed25519.PublicKey(pub))
	}
	data, err := readlimit.Large(path, maxRecord)
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
	_, steps, err := review.ReadRecord(data)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	events, _, err := transcript.ConvertFile(ex.evidence)
	if err != nil {
		fmt.Fprintf(stderr, "logbook-verify: --evidence %s: %v\n", ex.evidence, err)
		return 2
	}
	raw, err := evidence.Scan(evidence.Files(ex.evidence))
	if err != nil {
		fmt.Fprintf(stderr, "logbook-verify: --evidence %s: %v\n", ex.evidence, err)
		return 2
	}
	rep, err := evidence.Check(steps, events, raw)
	if err != nil {
		fmt.Fprintf(stderr, "logbook-verify: --evidence %s: %v\n", ex.evidence, err)
		return 2
	}
	if asJSON {
		out := struct {
			RecordID string           `json:"recordId"`
			OK       bool             `json:"ok"`       // the verdict: nothing differs or moved, nothing absent unless allowed
			Complete bool             `json:"complete"` // every recorded body found and matched
			Evidence *evidence.Report `json:"evidence"`
		}{res.RecordID, !rep.Failed(ex.allowAbsent), rep.Complete(), rep}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(out)
	} else {
		printHuman(stdout, res, len(opt.Pinned) > 0, policy.Report{})
		evidence.WriteText(stdout, rep, ex.showBodies, ex.allowAbsent)
	}
	if rep.Failed(ex.allowAbsent) {
		return 1
	}
	return 0
}
