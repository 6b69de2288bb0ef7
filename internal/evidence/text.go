package evidence

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/review"
)

// WriteHuman prints the report for a reader: one line per item, naming
// its record steps (seq) and toolUseId, then a verdict line. show is ""
// (no bodies), "differs" (the transcript's bodies of items not matched,
// cleaned of terminal controls) or "all"; allowAbsent is --allow-absent.
func WriteHuman(w io.Writer, rep *Report, show string, allowAbsent bool) {
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
	switch {
	case rep.Summary["calls "+Differs]+rep.Summary["prompts "+Differs]+rep.Summary["final messages "+Differs]+rep.Summary["sub-agent final messages "+Differs] > 0 || !rep.OK() && !anyMoved(rep):
		verdict = "EVIDENCE DIFFERS"
	case !rep.OK():
		verdict = "EVIDENCE OUT OF ORDER (the transcript's lines are not in the record's order)"
	case !rep.Complete() && !allowAbsent && rep.Failed(false):
		verdict = "EVIDENCE INCOMPLETE (recorded bodies absent from the transcript; --allow-absent accepts that)"
	case !rep.Complete() && rep.Failed(false):
		verdict = "EVIDENCE MATCHES WHERE PRESENT (some bodies absent, allowed)"
	}
	tail := ""
	if rep.ReadUnchecked > 0 {
		tail = fmt.Sprintf("; calls whose result the model read has no digest in the record: %d", rep.ReadUnchecked)
	}
	fmt.Fprintf(w, "%s: %s; transcript calls the record does not name: %d%s\n", verdict, strings.Join(keys, "; "), len(rep.NotRecorded), tail)
}

func anyMoved(rep *Report) bool {
	for _, it := range rep.Items {
		if it.Status == Moved {
			return true
		}
	}
	return false
}
