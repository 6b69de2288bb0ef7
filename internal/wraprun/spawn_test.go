package wraprun

import (
	"os/exec"
	"slices"
	"testing"
)

// TestChildEnvAsExec: the command gets the environment exec.Cmd would
// give it (spawn no longer goes through exec.Cmd): nil is this process's
// with PWD, the last of a duplicated name wins, entries without "=" stay,
// and a NUL is refused.
func TestChildEnvAsExec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, env := range [][]string{
		nil,
		{},
		{"A=1", "B=2", "A=3", "C", "", "=x=1", "=x=2", "B=4"},
		{"A=1", "N=a\x00b", "A=2"},
	} {
		cmd := exec.Command("true")
		cmd.Env, cmd.Dir = env, dir
		want := cmd.Environ()
		got, err := childEnv(env, dir)
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %q, exec.Cmd gives %q", env, got, want)
		}
		if nul := slices.ContainsFunc(env, func(kv string) bool { return len(kv) == 5 && kv[3] == 0 }); nul != (err != nil) {
			t.Errorf("%q: error %v", env, err)
		}
	}
}
