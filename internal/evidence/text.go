package evidence

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/review"
)

// WriteHuman prints the report for a reader: one line per item, naming
// its record steps (seq) and toolUseId, then a summary line. show is ""
// (no bodies), "differs" (the transcript's bodies of items not matched,
// cleaned of terminal controls) or "all"; allow is --allow-absent and
// --allow-unheld. The verdict, Refusal's, is the caller's to print.
func WriteHuman(w io.Writer, rep *Report, show string, allow Allow) {
	for _, it := range rep.Items {
		name := it.What
		if it.What == "call" {
			name = "call " + review.Clean(it.Tool) + " " + review.Clean(it.ToolUseID)
		}
		var seqs []string
		for _, s := range it.Seqs() {
			seqs = append(seqs, strconv.FormatInt(s, 10))
		}
		var parts []string
		for _, b := range it.Bodies {
			p := b.Role
			if b.Place != "" {
				p += " (" + b.Place + ")"
			}
			p += " " + b.Status
			if b.Note != "" {
				p += " (" + b.Note + ")"
			}
			parts = append(parts, p)
		}
		line := fmt.Sprintf("%-8s %s (seq %s): %s", it.Status, name, strings.Join(seqs, ","), strings.Join(parts, ", "))
		if it.Note != "" {
			line += "; " + review.Clean(it.Note)
		}
		fmt.Fprintln(w, line)
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
		m, d, a, mv := rep.Summary[what+" "+Matched], rep.Summary[what+" "+Differs], rep.Summary[what+" "+Absent], rep.Summary[what+" "+Moved]
		if m+d+a+mv > 0 {
			k := fmt.Sprintf("%s: %d matched, %d differs, %d absent", what, m, d, a)
			if mv > 0 {
				k += fmt.Sprintf(", %d moved", mv)
			}
			keys = append(keys, k)
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
	ref := rep.Refusal(allow)
	switch {
	case ref != nil && ref.Code == format.EvidenceDiffers:
		verdict = "EVIDENCE DIFFERS"
	case ref != nil && ref.Code == format.EvidenceUnrecorded:
		verdict = "EVIDENCE HOLDS MORE THAN THE RECORD (calls, prompts or results the record never saw)"
	case ref != nil && ref.Code == format.EvidenceMoved:
		verdict = "EVIDENCE OUT OF ORDER (the transcript's lines are not in the record's order)"
	case ref != nil && ref.Code == format.EvidenceAbsent:
		verdict = "EVIDENCE INCOMPLETE (recorded bodies absent from the transcript; --allow-absent accepts that)"
	case ref != nil:
		verdict = "EVIDENCE UNPROVEN (the record holds no digest of what the model read; --allow-unheld accepts that)"
	case !rep.Complete() && rep.Refusal(Allow{Unheld: true}) != nil:
		verdict = "EVIDENCE MATCHES WHERE PRESENT (some bodies absent, allowed)"
	}
	tail := ""
	if n := len(rep.NotRecordedPrompts); n > 0 {
		tail += fmt.Sprintf("; transcript prompts the record does not have: %d", n)
	}
	if n := len(rep.Repeated); n > 0 {
		tail += fmt.Sprintf("; calls with a second input or result in the transcript: %d", n)
	}
	if rep.ReadUnchecked > 0 {
		tail += fmt.Sprintf("; calls whose result the model read has no digest in the record: %d", rep.ReadUnchecked)
		if allow.Unheld {
			tail += " (allowed)"
		}
	}
	fmt.Fprintf(w, "%s: %s; transcript calls the record does not name: %d%s\n", verdict, strings.Join(keys, "; "), len(rep.NotRecorded), tail)
}
