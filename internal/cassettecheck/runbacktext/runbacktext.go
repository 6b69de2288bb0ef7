// Package runbacktext prints a runback cassette's verdict for a terminal,
// a line per check (logbook-verify CASSETTE). The cassette's own strings
// are shown as review.Clean shows them: a run id cannot move the cursor
// or pass for a verdict line. It is apart from internal/cassettecheck so that
// the recorder's side does not link the reviewer's text rules.
package runbacktext

import (
	"fmt"
	"io"
	"strings"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	"github.com/logbook-project/logbook/internal/review"
)

// Write prints r: the verdict and schema, then each check, the findings
// and why a cassette is unverified or refused.
func Write(w io.Writer, r cassettecheck.Result) {
	schema := strings.Trim(string(r.Meta.Schema), `"`)
	fmt.Fprintf(w, "%s %s\n", strings.ToUpper(r.Verdict), review.Clean(schema))
	if r.Meta.RunID != nil {
		fmt.Fprintf(w, "  run_id        %s\n", review.Clean(string(r.Meta.RunID)))
	}
	fmt.Fprintf(w, "  events        %d\n", r.Meta.EventCount)
	mark := func(ok bool) string {
		if ok {
			return "ok  "
		}
		return "FAIL"
	}
	c := r.Checks
	fmt.Fprintf(w, "  %s schema     $schema is one runback checks\n", mark(c.Schema))
	fmt.Fprintf(w, "  %s consistent run_id and outcome match the signed events\n", mark(c.Consistent))
	for _, f := range r.ConsistencyFailures {
		fmt.Fprintf(w, "       - %s\n", review.Clean(f)) // runback's words, with the cassette's strings in them
	}
	chain := "event hashes form an unbroken SHA-256 chain"
	if r.FirstBadEvent >= 0 {
		chain = fmt.Sprintf("events[%d]._hash does not recompute", r.FirstBadEvent)
	}
	fmt.Fprintf(w, "  %s chain      %s\n", mark(c.Chain), chain)
	fmt.Fprintf(w, "  %s digest     manifest.content_digest is the terminal chain hash\n", mark(c.Digest))
	fmt.Fprintf(w, "  %s cassette   the oracle-stream digest matches manifest.replay.cassette_digest\n", mark(c.Cassette))
	sigMark := "--  " // established nothing either way
	switch c.Signature {
	case cassettecheck.SigValid:
		sigMark = "ok  "
	case cassettecheck.SigInvalid, cassettecheck.SigRevoked:
		sigMark = "FAIL"
	}
	fmt.Fprintf(w, "  %s signature  %s: %s\n", sigMark, c.Signature, review.Clean(r.SignatureNote))
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  finding %s: %s\n", f.Code, review.Clean(f.Detail))
	}
	if r.Strict && r.Verdict != r.RunbackVerdict {
		fmt.Fprintf(w, "  refused by --strict (runback's verdict: %s)\n", r.RunbackVerdict)
	}
	if r.Verdict == cassettecheck.Unverified {
		fmt.Fprintln(w, "  integrity holds, but nothing here proves who made it: the chain algorithm is public")
	}
	if len(r.FailedChecks) > 0 {
		fmt.Fprintf(w, "  failed: %s\n", strings.Join(r.FailedChecks, ", "))
	}
}
