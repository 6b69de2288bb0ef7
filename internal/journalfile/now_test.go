package journalfile

import (
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// TestAppendNowMonotonic: the time is asked under the lock, and a clock
// that steps back (or a writer whose time was taken before another's)
// never puts at behind the step before it.
func TestAppendNowMonotonic(t *testing.T) {
	dir := t.TempDir()
	clock := []string{"2026-05-01T00:00:02.5Z", "2026-05-01T00:00:01Z", "2026-05-01T00:00:02.25Z", "2026-05-01T00:00:03Z"}
	want := []string{"2026-05-01T00:00:02.5Z", "2026-05-01T00:00:02.5Z", "2026-05-01T00:00:02.5Z", "2026-05-01T00:00:03Z"}
	for i, c := range clock {
		j, err := Open(dir, "s")
		if err != nil {
			t.Fatal(err)
		}
		asked := false
		steps := []chain.Step{{Kind: "note", Summary: "x", Data: strictjson.Obj()}}
		if _, err := j.AppendNow(Header{Session: "s"}, steps, func() string { asked = true; return c }); err != nil {
			t.Fatal(err)
		}
		j.Close()
		if !asked || steps[0].At != want[i] {
			t.Errorf("step %d: at %q (clock asked: %v), want %q", i, steps[0].At, asked, want[i])
		}
	}
}
