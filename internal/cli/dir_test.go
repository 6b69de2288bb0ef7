package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDirIn: the session directory resolves against the caller's working
// directory as Dir does against this process's.
func TestDirIn(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	cwd, _ := os.Getwd()
	for _, c := range []struct {
		flag, logbookDir, project, want string
	}{
		{"rel", "", "", "/caller/rel"},
		{"/abs/d", "", "", "/abs/d"},
		{"", "x/../y", "", "/caller/y"},
		{"", "", "proj", "/caller/proj/.logbook"},
		{"", "", "", "/caller/.logbook"},
	} {
		env["LOGBOOK_DIR"], env["CLAUDE_PROJECT_DIR"] = c.logbookDir, c.project
		if got := DirIn("/caller", c.flag, getenv); got != c.want {
			t.Errorf("%+v: %s", c, got)
		}
		d, _ := Dir(c.flag, getenv)
		if want := DirIn(cwd, c.flag, getenv); d != want || !filepath.IsAbs(d) {
			t.Errorf("%+v: Dir %s, DirIn(cwd) %s", c, d, want)
		}
	}
}
