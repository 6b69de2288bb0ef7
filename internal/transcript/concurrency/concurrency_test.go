package concurrency

import "testing"

func TestReadOnlyCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git log --oneline -20": true,
		`git log --oneline master..HEAD 2>/dev/null || echo "No divergence"`: true,
		"git status 2>&1":                                true,
		"ls -la /tmp/x 2>&1 | head -5":                   true,
		`find . -name "*.ex" -type f`:                    true,
		"tail -30 /tmp/claude-1000/tasks/bd0afab.output": true,
		"bd show spotter-gqc 2>/dev/null":                false, // unknown command
		"mix test 2>&1 | tail -5":                        false,
		"git push 2>&1":                                  false,
		"git add . && git commit -m x":                   false,
		"ls > out.txt":                                   false,
		"find . -delete":                                 false,
		"echo $(rm -rf x)":                               false,
		"sleep 5 &":                                      false,
		`echo "unbalanced`:                               false,
		"":                                               false,
		`bd ready 2>/dev/null; echo "---"; bd list --status=open 2>/dev/null`:   false,
		`git log -1 --format="%H %s"; git diff --stat HEAD~1 -- "a b.txt" 2>&1`: true,
	} {
		if got := ReadOnly(cmd); got != want {
			t.Errorf("ReadOnly(%q) = %v, want %v", cmd, got, want)
		}
	}
}
