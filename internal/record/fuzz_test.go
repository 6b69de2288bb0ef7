package record_test

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

var knownCodes = map[format.Code]bool{
	"": true, format.NotJSON: true, format.Shape: true, format.StepOutOfOrder: true, format.ChainBroken: true,
	format.StepCountMismatch: true, format.TipMismatch: true, format.SignatureInvalid: true, format.SignerNotTrusted: true,
	format.Tombstoned: true, // a retention tombstone stands for a deleted record
}

// FuzzVerify: the verifier never panics, always names a known code, and is
// a pure function of its input.
func FuzzVerify(f *testing.F) {
	patterns := []string{filepath.Join(fixtureDir, "*.json")}
	if dir, ok := corpora.Find("corpora/jsontestsuite"); ok {
		patterns = append(patterns, filepath.Join(dir, "*.json"))
	}
	for _, pattern := range patterns {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	pinned := []ed25519.PublicKey{fixtureKey("fixture").Public().(ed25519.PublicKey)}
	f.Fuzz(func(t *testing.T, data []byte) {
		a := record.Verify(data, record.Options{Pinned: pinned})
		if !knownCodes[a.Code] || a.OK != (a.Code == "") {
			t.Fatalf("bad verdict %+v", a)
		}
		if b := record.Verify(data, record.Options{Pinned: pinned}); !reflect.DeepEqual(a, b) {
			t.Fatalf("verdict changed between runs: %+v vs %+v", a, b)
		}
	})
}
