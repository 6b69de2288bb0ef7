package format

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Contains is bytes.Contains, for every anchor, on texts made of the
// pattern's own pieces (near misses at every offset).
func TestContains(t *testing.T) {
	t.Parallel()
	pat := []byte(`"data":{"event":"logbook.unsealed"}`)
	pieces := [][]byte{pat, pat[:7], pat[7:], pat[1:], pat[:len(pat)-1], []byte(`"`), []byte(`{`), []byte(`x`), []byte(`"data":`)}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var data []byte
		for range rng.IntN(8) {
			data = append(data, pieces[rng.IntN(len(pieces))]...)
		}
		want := bytes.Contains(data, pat)
		for k := 0; k < len(pat); k++ {
			if got := Contains(data, string(pat), k); got != want {
				t.Fatalf("%q, k=%d: %v, want %v", data, k, got, want)
			}
		}
	}
}
