package logproof

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// memTree is a tree built in memory with tlog's own hashing (the server is
// not needed to measure proofs).
type memTree struct{ hashes []tlog.Hash }

func (m *memTree) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m.hashes[x]
	}
	return out, nil
}

func buildTree(b *testing.B, n int64) (*memTree, tlog.Hash) {
	m := &memTree{}
	for i := int64(0); i < n; i++ {
		hs, err := tlog.StoredHashes(i, leafData(i), m)
		if err != nil {
			b.Fatal(err)
		}
		m.hashes = append(m.hashes, hs...)
	}
	root, err := tlog.TreeHash(n, m)
	if err != nil {
		b.Fatal(err)
	}
	return m, root
}

func leafData(i int64) []byte {
	var x [8]byte
	binary.BigEndian.PutUint64(x[:], uint64(i))
	s := sha256.Sum256(x[:])
	return s[:]
}

// BenchmarkProof: the size of an inclusion proof and the time to check it
// grow with log2 of the log's size. 10^6 leaves take a few seconds to
// build; run with -bench Proof -benchtime 2000x once for the figures in
// docs/log.md.
func BenchmarkProof(b *testing.B) {
	for _, n := range []int64{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("leaves=%d", n), func(b *testing.B) {
			m, root := buildTree(b, n)
			i := n / 3
			proof, err := tlog.ProveRecord(n, i, m)
			if err != nil {
				b.Fatal(err)
			}
			p := Proof{Extra: make([]byte, 430), Index: i, Hashes: proof, Checkpoint: make([]byte, 300)}
			leaf := tlog.RecordHash(leafData(i))
			b.ResetTimer()
			for b.Loop() {
				if err := tlog.CheckRecord(proof, n, root, i, leaf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(proof)), "hashes")
			b.ReportMetric(float64(len(p.Format())), "proof-bytes")
		})
	}
}

// BenchmarkCheck: the whole offline check of a record's proof of logging
// (parse, inclusion, the log's signature, one witness cosignature, the
// quorum), on the fixture testdata/records/log/proofs/good.tlog-proof.
func BenchmarkCheck(b *testing.B) {
	proof, err1 := os.ReadFile("../../testdata/records/log/proofs/good.tlog-proof")
	pol, err2 := os.ReadFile("../../testdata/records/log/policies/w1.policy")
	if err1 != nil || err2 != nil {
		b.Fatal(err1, err2)
	}
	p, err := ParsePolicy(pol)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if r := Check(proof, p); r.Code != "" {
			b.Fatal(r.Code, r.Detail)
		}
	}
}
