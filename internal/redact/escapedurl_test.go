package redact

import (
	"net/url"
	"strings"
	"testing"
)

// TestEscapedURLs: a secret a URL carries escaped, as a search box, a
// form or a harness's fetch writes it (issue 32: SG.…, sntrys_…,
// pscale_…, …~…, …= survived as the search text of a WebFetch URL), is
// found in what the URL says and replaced where it is written; the rest
// of the URL stays as written. The values are made up in each rule's
// shape.
func TestEscapedURLs(t *testing.T) {
	t.Parallel()
	secrets := []string{
		"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", // sendgrid
		"xY71Q~Fh3Kd9sPq2LmZ8vB4nR6tW1cY5uJ0eGz",                                // azure-ad-client-secret
		"pscale_tkn_Zq3vB8nR6tW1cY5uJ0eGzFh3Kd9sPq2LmX-_.",                      // planetscale
	}
	enc := map[string]func(string) string{
		"form":  url.QueryEscape,
		"path":  url.PathEscape,
		"js":    func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") },
		"every": escapeEvery,
	}
	for _, sec := range secrets {
		if out := String(sec); strings.Contains(out, sec[6:18]) {
			t.Fatalf("%s is not a secret to the rules even plain: %q", sec, out)
		}
		for name, e := range enc {
			for _, u := range []string{
				"https://www.google.com/search?q=" + e("what is "+sec) + "&hl=en",
				"https://duckduckgo.com/html/?q=" + e(sec),
				"https://app.example.com/#/search?q=" + e("key "+sec) + "&page=2",
				"https://api.example.com/v1/keys/" + escapeEvery(sec) + "/rotate",
				`curl -sL "https://www.bing.com/search?q=` + e(sec) + `&form=QBLH"`,
			} {
				out := String(u)
				if strings.Contains(out, sec[6:18]) || strings.Contains(out, e(sec)[6:18]) || !strings.Contains(out, Mask) {
					t.Errorf("%s: survives:\n in %s\nout %s", name, u, out)
				}
				if !strings.Contains(out, "https://") {
					t.Errorf("%s: the URL itself went:\n in %s\nout %s", name, u, out)
				}
			}
		}
	}
	// Nothing escaped, nothing secret: as is, and without allocating.
	for _, u := range []string{"https://www.google.com/search?q=what+is+a+monad&hl=en", "see https://example.com/a%20b/c?x=1%2C2#frag"} {
		if out := String(u); out != u {
			t.Errorf("%q changed: %q", u, out)
		}
	}
}

func escapeEvery(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + string(hex[c>>4]) + string(hex[c&15]))
	}
	return b.String()
}
