package hookconf

import (
	"bytes"

	"github.com/rogpeppe/go-internal/diff"
)

// UnifiedDiff shows the change from old to new as a unified diff of lines
// (what --dry-run prints), with go-internal's diff (the one testscript
// uses): its first line, "diff A B", is dropped so the output reads as
// diff -u's. A side that does not exist is /dev/null.
func UnifiedDiff(path string, old []byte, oldExists bool, new []byte, newExists bool) string {
	from, to := "a/"+path, "b/"+path
	if !oldExists {
		from = "/dev/null"
	}
	if !newExists {
		to = "/dev/null"
	}
	if bytes.Equal(old, new) {
		return "--- " + from + "\n+++ " + to + "\n"
	}
	d := diff.Diff(from, old, to, new)
	if i := bytes.IndexByte(d, '\n'); i >= 0 {
		d = d[i+1:]
	}
	return string(d)
}
