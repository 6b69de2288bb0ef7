// Package testreport lets a test leave a figure in the report that
// scripts/test.sh prints after go test, which hides what passing tests log.
// Tests only.
package testreport

import (
	"fmt"
	"os"
	"testing"
)

// Line logs line and appends it to the file named by LOGBOOK_TEST_REPORT,
// when that is set.
func Line(t testing.TB, line string) {
	t.Helper()
	t.Log(line)
	p := os.Getenv("LOGBOOK_TEST_REPORT")
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("report: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
