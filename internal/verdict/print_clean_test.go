package verdict_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/verdict"
)

// A refusal's detail may quote the record (an actor's subject): the
// terminal line shows its controls and bidi marks, never obeys them.
func TestHumanDetailClean(t *testing.T) {
	var b bytes.Buffer
	detail := "step 2 was sent by \x1b]0;pwned\x07ev\u202eil in acme\nOK"
	verdict.WriteHuman(&b, verdict.Outcome{Result: record.Result{Code: format.ActorMismatch, Detail: detail}})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") || strings.Count(out, "\n") != 1 {
		t.Fatalf("the detail reached the terminal raw: %q", out)
	}
	if !strings.Contains(out, "⟦U+001B⟧") || !strings.Contains(out, "⟦U+202E⟧") {
		t.Fatalf("the hidden characters are not named: %q", out)
	}
}
