package e2e

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
)

// FuzzBrowserDifferential feeds mutated records to the page and to
// record.Verify (the code behind logbook-verify, in process for speed),
// pinned to the fixture key, and requires the same verdict. Without -fuzz
// it runs the fixtures; with it, for example
//
//	go test ./e2e -run XXX -fuzz FuzzBrowserDifferential -fuzztime 5m
//
// it searches for a record the two read differently.
func FuzzBrowserDifferential(f *testing.F) {
	fixtures, _ := filepath.Glob("../testdata/records/*.json")
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	pemText, err := os.ReadFile("../testdata/keys/fixture.key.pub")
	if err != nil {
		f.Fatal(err)
	}
	pub, err := keys.ParsePublicKeyPEM(pemText)
	if err != nil {
		f.Fatal(err)
	}
	b := newBrowser(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := record.Verify(data, record.Options{Pinned: []ed25519.PublicKey{pub}})
		want := verdict{OK: res.OK}
		if res.Code != "" {
			code := string(res.Code)
			want.Code = &code
		}
		if res.RecordID != "" {
			want.RecordID, want.KeyID, want.StepCount = &res.RecordID, &res.KeyID, &res.StepCount
		}
		got, err := b.verify(data, []string{string(pemText)})
		if err != nil {
			t.Fatalf("window.logbookVerify: %v", err)
		}
		if !same(got, want) {
			t.Errorf("the page and record.Verify disagree on %q\n page: %v\n   Go: %v", data, got, want)
		}
	})
}
