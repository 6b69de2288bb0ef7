package review_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/review"
)

// TestWriteListColumns: the columns line up under their headers with
// times to the nanosecond, as the recorder writes them (a 24-wide column
// pushed LAST and CHECK off their headers).
func TestWriteListColumns(t *testing.T) {
	var b bytes.Buffer
	err := review.WriteList(&b, []review.Listed{{ID: "s1", State: "sealed", Steps: 5,
		Start: "2026-12-01T20:23:29.868513675Z", End: "2026-12-01T20:23:32.003877785Z", Verdict: "OK"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	head, row := lines[0], lines[1]
	for _, c := range []struct{ header, value string }{{"FIRST", "2026-12-01T20:23:29"}, {"LAST", "2026-12-01T20:23:32"}, {"CHECK", "OK"}} {
		if h, v := strings.Index(head, c.header), strings.Index(row, c.value); h != v {
			t.Errorf("%s at column %d, its value at %d:\n%s\n%s", c.header, h, v, head, row)
		}
	}
}
