package server

import (
	"strings"
	"testing"
)

// TestWithinHostile: a commit's work tree names the sessions whose cwd
// is in it, and no other, whatever the cwd a session's header claims:
// .. that climbs out, a sibling sharing a prefix, a relative path,
// trailing slashes, a very long path.
func TestWithinHostile(t *testing.T) {
	long := "/repo/" + strings.Repeat("a/", 3000)
	for _, c := range []struct {
		top, cwd string
		in       bool
	}{
		{"/repo", "/repo", true},
		{"/repo", "/repo/", true},
		{"/repo/", "/repo/sub", true},
		{"/repo", "/repo/..foo", true},
		{"/repo", "/repo/sub/../../etc", false},
		{"/repo", "/repo/../repo2", false},
		{"/repo", "/repo2", false},
		{"/re", "/repo", false},
		{"/repo", "repo", false},
		{"/repo", "./repo/sub", false},
		{"/repo", "", false},
		{"/repo", "/", false},
		{"/repo", long, true},
		{"/repo", "/repo/a\x00b", true}, // a name, not a cut
		{"/repo/a", "/repo/a\x00b", false},
	} {
		if got := within(c.top, c.cwd); got != c.in {
			t.Errorf("within(%q, %.40q) = %v, want %v", c.top, c.cwd, got, c.in)
		}
	}
}
