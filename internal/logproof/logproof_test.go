package logproof

import (
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"

	flog "github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type fixture struct {
	logS, witS, otherS note.Signer
	logV, witV         string
	tree               *memTree
	n                  int64
	root               tlog.Hash
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{n: 37}
	var err error
	skey, vkey, _ := note.GenerateKey(nil, "log.test")
	f.logS, _ = note.NewSigner(skey)
	f.logV = vkey
	skey, vkey, _ = note.GenerateKey(nil, "witness.test")
	if f.witS, err = fnote.NewSignerForCosignatureV1(skey); err != nil {
		t.Fatal(err)
	}
	f.witV, _ = fnote.VKeyToCosignatureV1(vkey)
	skey, _, _ = note.GenerateKey(nil, "log.test")
	f.otherS, _ = note.NewSigner(skey)
	f.tree = &memTree{}
	for i := int64(0); i < f.n; i++ {
		hs, _ := tlog.StoredHashes(i, leafData(i), f.tree)
		f.tree.hashes = append(f.tree.hashes, hs...)
	}
	f.root, _ = tlog.TreeHash(f.n, f.tree)
	return f
}

func (f *fixture) checkpoint(t *testing.T, size int64, root tlog.Hash, signers ...note.Signer) []byte {
	text := flog.Checkpoint{Origin: "log.test", Size: uint64(size), Hash: root[:]}.Marshal()
	b, err := note.Sign(&note.Note{Text: string(text)}, signers...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fixture) proof(t *testing.T, i int64, cp []byte) []byte {
	h, err := tlog.ProveRecord(f.n, i, f.tree)
	if err != nil {
		t.Fatal(err)
	}
	return (&Proof{Extra: leafData(i), Index: i, Hashes: h, Checkpoint: cp}).Format()
}

// Every code of step 10 is reachable, in its order.
func TestCheckCodes(t *testing.T) {
	f := newFixture(t)
	pol, err := ParsePolicy([]byte(fmt.Sprintf("# test\nlog %s\nwitness w %s\nquorum w\n", f.logV, f.witV)))
	if err != nil {
		t.Fatal(err)
	}
	good := f.checkpoint(t, f.n, f.root, f.logS, f.witS)
	if r := Check(f.proof(t, 5, good), pol); r.Code != "" || r.Size != f.n || len(r.Cosigned) != 1 {
		t.Fatalf("good proof: %+v", r)
	}
	wrongLeaf := strings.Replace(string(f.proof(t, 5, good)), "index 5", "index 6", 1)
	cases := map[string][]byte{
		"empty":           nil,
		"no header":       []byte("index 1\n\n" + string(good)),
		"bad index":       []byte(Header + "\nextra AA==\nindex 01\n\n" + string(good)),
		"wrong leaf":      []byte(wrongLeaf),
		"beyond the tree": []byte(strings.Replace(string(f.proof(t, 5, good)), "index 5", "index 99", 1)),
	}
	for name, p := range cases {
		if r := Check(p, pol); r.Code != ProofInvalid {
			t.Errorf("%s: %q, want %s", name, r.Code, ProofInvalid)
		}
	}
	if r := Check(f.proof(t, 5, f.checkpoint(t, f.n, f.root, f.otherS, f.witS)), pol); r.Code != Untrusted {
		t.Errorf("other log key: %q", r.Code)
	}
	// An untrusted log key and a bad inclusion: LOG_PROOF_INVALID first.
	bad := strings.Replace(string(f.proof(t, 5, f.checkpoint(t, f.n, f.root, f.otherS))), "index 5", "index 6", 1)
	if r := Check([]byte(bad), pol); r.Code != ProofInvalid {
		t.Errorf("both: %q", r.Code)
	}
	if r := Check(f.proof(t, 5, f.checkpoint(t, f.n, f.root, f.logS)), pol); r.Code != Quorum {
		t.Errorf("no cosignature: %q", r.Code)
	}
	none, _ := ParsePolicy([]byte("log " + f.logV + "\nquorum none\n"))
	if r := Check(f.proof(t, 5, f.checkpoint(t, f.n, f.root, f.logS)), none); r.Code != "" {
		t.Errorf("quorum none: %q", r.Code)
	}
}

func TestConsistent(t *testing.T) {
	f := newFixture(t)
	pol, _ := ParsePolicy([]byte("log " + f.logV + "\nquorum none\n"))
	oldRoot, _ := tlog.TreeHash(20, f.tree)
	old := f.checkpoint(t, 20, oldRoot, f.logS)
	cur := f.checkpoint(t, f.n, f.root, f.logS)
	proof, _ := tlog.ProveTree(f.n, 20, f.tree)
	if code, d := Consistent(old, cur, proof, pol); code != "" {
		t.Fatal(code, d)
	}
	forked := f.checkpoint(t, 20, tlog.Hash{1}, f.logS)
	if code, _ := Consistent(forked, cur, proof, pol); code != ProofInvalid {
		t.Errorf("fork: %q", code)
	}
	if code, _ := Consistent(cur, old, proof, pol); code != ProofInvalid {
		t.Errorf("backwards: %q", code)
	}
	if code, _ := Consistent(old, f.checkpoint(t, f.n, f.root, f.otherS), proof, pol); code != Untrusted {
		t.Errorf("untrusted: %q", code)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	f := newFixture(t)
	_ = ed25519.PublicKeySize
	for name, p := range map[string]string{
		"no quorum":      "log " + f.logV + "\n",
		"two quorums":    "quorum none\nquorum none\n",
		"undefined":      "quorum w\n",
		"forward ref":    "group g any w\nwitness w " + f.witV + "\nquorum g\n",
		"duplicate name": "witness w " + f.witV + "\nwitness w " + f.witV + "\nquorum w\n",
		"duplicate key":  "log " + f.logV + "\nlog " + f.logV + "\nquorum none\n",
		"threshold":      "witness w " + f.witV + "\ngroup g 2 w\nquorum g\n",
		"member twice":   "witness w " + f.witV + "\ngroup g any w w\nquorum g\n",
		"keyword":        "frobnicate\nquorum none\n",
		"control":        "quorum none\r\n",
		"reserved":       "witness none " + f.witV + "\nquorum none\n",
	} {
		if _, err := ParsePolicy([]byte(p)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(Header + "\nextra AA==\nindex 0\n\nlog\n1\nAAAA\n\n— x y\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := Parse(b); err == nil {
			if q, err := Parse(p.Format()); err != nil || q.Index != p.Index {
				t.Fatalf("round trip: %v", err)
			}
		}
		ParsePolicy(b)
	})
}
