package hookpost

import (
	"os"
	"path/filepath"
	"testing"
)

// TestToken: the variable wins; else the enrolled credential's file; else
// nothing.
func TestToken(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "APPDATA": home}
	getenv := func(k string) string { return env[k] }
	if tok := Token(getenv); tok != "" {
		t.Errorf("no file: %q", tok)
	}
	p := CredentialPath(getenv)
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte("lbk_abc\n"), 0o600)
	if tok := Token(getenv); tok != "lbk_abc" {
		t.Errorf("file: %q", tok)
	}
	env["LOGBOOK_SERVER_TOKEN"] = "shared"
	if tok := Token(getenv); tok != "shared" {
		t.Errorf("variable: %q", tok)
	}
}

// BenchmarkToken: what a hook spends finding its token, from the
// variable (as before enrollment existed) and from the credential's file.
func BenchmarkToken(b *testing.B) {
	home := b.TempDir()
	p := CredentialPath(func(k string) string { return home })
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte("lbk_0123456789012345678901234567890123456789012\n"), 0o600)
	for _, arm := range []struct {
		name string
		env  map[string]string
	}{{"variable", map[string]string{"LOGBOOK_SERVER_TOKEN": "shared", "HOME": home}}, {"file", map[string]string{"HOME": home, "APPDATA": home}}} {
		b.Run(arm.name, func(b *testing.B) {
			getenv := func(k string) string { return arm.env[k] }
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if Token(getenv) == "" {
					b.Fatal("no token")
				}
			}
		})
	}
}
