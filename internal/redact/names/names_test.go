package names

import "testing"

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name  string
		ctx   Context
		extra []string
		want  Class
	}{
		{"GITHUB_TOKEN", InKey, nil, StrongSecret},
		{"clientSecret", InKey, nil, StrongSecret},
		{"X-Api-Key", InKey, nil, StrongSecret},
		{"key", InKey, nil, WeakSecret},
		{"primary_key", InKey, nil, NotSecret},
		{"input_tokens", InKey, nil, NotSecret},
		{"KEYBOARD", InKey, nil, NotSecret},
		{"signature", InKey, nil, NotSecret},
		{"signature", InQuery, nil, StrongSecret},
		{"no-auth", InFlag, nil, NotSecret},
		{"ACME_SEED", InKey, nil, NotSecret},
		{"ACME_SEED", InKey, []string{"seed"}, StrongSecret},
	} {
		if got := Classify(c.name, c.ctx, c.extra); got != c.want {
			t.Errorf("Classify(%q, %d, %q) = %d, want %d", c.name, c.ctx, c.extra, got, c.want)
		}
	}
	if !MentionsSecret("CURL_AUTH_USER") || MentionsSecret("AUTHOR_NAME") {
		t.Error("MentionsSecret")
	}
	if !ContainsAny("my_SEED_x", []string{"seed"}) || ContainsAny("abc", []string{"seed"}) {
		t.Error("ContainsAny")
	}
}
