package main

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/logbook-project/logbook/internal/evidence"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/transcript"
)

// runEvidence verifies the record, then checks the transcript against its
// digests. Exit status: 0 when the record is accepted and no body differs
// (absent ones are listed); 1 when the record is refused or a body
// differs; 2 on a usage or I/O error.
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
	raw, err := evidence.RawBodies(evidence.Files(ex.evidence))
	if err != nil {
		fmt.Fprintf(stderr, "logbook-verify: --evidence %s: %v\n", ex.evidence, err)
		return 2
	}
	rep, err := evidence.Check(steps, events, raw...)
	if err != nil {
		fmt.Fprintf(stderr, "logbook-verify: --evidence %s: %v\n", ex.evidence, err)
		return 2
	}
	if asJSON {
		out := struct {
			RecordID string           `json:"recordId"`
			OK       bool             `json:"ok"`       // nothing differs
			Complete bool             `json:"complete"` // nothing absent either
			Evidence *evidence.Report `json:"evidence"`
		}{res.RecordID, rep.OK(), rep.Complete(), rep}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(out)
	} else {
		printHuman(stdout, res, len(opt.Pinned) > 0, policy.Report{})
		printEvidence(stdout, rep, ex.showBodies)
	}
	if rep.OK() {
		return 0
	}
	return 1
}

func printEvidence(w io.Writer, rep *evidence.Report, show string) {
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
		if show == "all" || (show == "differs" && it.Status != evidence.Matched) {
			for _, b := range it.Bodies {
				if t := b.BodyText(); t != nil && (show == "all" || b.Status != evidence.Matched) {
					fmt.Fprintf(w, "    transcript %s (seq %d): %s\n", b.Role, b.Seq, review.Clean(string(t)))
				}
			}
		}
	}
	var keys []string
	for _, what := range []string{"calls", "prompts", "final messages", "sub-agent final messages"} {
		m, d, a := rep.Summary[what+" "+evidence.Matched], rep.Summary[what+" "+evidence.Differs], rep.Summary[what+" "+evidence.Absent]
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
