package tsa_test

import (
	"testing"

	"github.com/logbook-project/logbook/internal/tsa"
)

func BenchmarkVerifyToken(b *testing.B) {
	w := newWorld()
	good := w.token(w.tsa, nil)
	roots := w.roots(w.root)
	for i := 0; i < b.N; i++ {
		if _, err := tsa.Verify(good, sig, roots); err != nil {
			b.Fatal(err)
		}
	}
}
