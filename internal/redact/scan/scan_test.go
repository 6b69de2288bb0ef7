package scan

import "testing"

func spans(s string, extra []string) []string {
	sc := New(s, extra)
	sc.Scan()
	var out []string
	for _, sp := range sc.Spans() {
		out = append(out, s[sp.Start:sp.End])
	}
	return out
}

func TestScan(t *testing.T) {
	for _, c := range []struct {
		s     string
		extra []string
		want  string
	}{
		{"export GITHUB_TOKEN=abc123 && gh pr list", nil, "abc123"},
		{"psql postgres://app:hunter2@db:5432/app", nil, "hunter2"},
		{"curl -H 'Authorization: Bearer xyz123abc'", nil, "xyz123abc"},
		{"mytool --seed s3cr3t", []string{"seed"}, "s3cr3t"},
		{"mytool --seed s3cr3t", nil, ""},
	} {
		got := spans(c.s, c.extra)
		if (c.want == "") != (len(got) == 0) || (c.want != "" && got[0] != c.want) {
			t.Errorf("%q: spans %q, want %q", c.s, got, c.want)
		}
	}
}

func TestCleanDoesNotAllocate(t *testing.T) {
	s := "go test ./... -run TestScan -count=1 && git status"
	if n := testing.AllocsPerRun(100, func() { sc := New(s, nil); sc.Scan() }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
