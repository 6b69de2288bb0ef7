package orgpolicy

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
)

func seeds(f *testing.F) {
	file, _, _ := Sign([]byte(minimal), testKey)
	f.Add(file)
	f.Add([]byte(withRedact("/tool_input/a/0")))
	f.Add([]byte(`{"policy":{},"signature":{}}`))
	files, _ := filepath.Glob("../../docs/examples/policy*.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzOpen: any bytes are a signed policy or a named *Error, never a panic.
func FuzzOpen(f *testing.F) {
	seeds(f)
	pub := testKey.Public().(ed25519.PublicKey)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Open(b, []ed25519.PublicKey{pub})
		if err == nil && s.Policy == nil || err != nil && code(err) == "" {
			t.Fatalf("%v %v", s, err)
		}
		if p, err := ParseText(b); err == nil {
			p.RedactPayload(b)
		} else if code(err) == "" {
			t.Fatal(err)
		}
	})
}

// FuzzRedactPayload: redaction never panics and leaves JSON it was given
// as JSON of the same top-level members.
func FuzzRedactPayload(f *testing.F) {
	f.Add([]byte(`{"tool_input":{"content":"x","a":[1,2]},"tool_response":{"x":"y"}}`))
	f.Add([]byte(`{"tool_input":{"content":"x","content":"y"}}`))
	f.Add([]byte(`{"tool_input":"\udc00"}`))
	p, err := ParseText([]byte(withRedact("/tool_input/content", "/tool_input/a/1", "/tool_response", "/tool_input/")))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = p.RedactPayload(b)
	})
}
