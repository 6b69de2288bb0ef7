package witness

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	flog "github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type memTree struct{ hashes []tlog.Hash }

func (m *memTree) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m.hashes[x]
	}
	return out, nil
}

func grow(t *testing.T, m *memTree, from, to int64, salt byte) {
	for i := from; i < to; i++ {
		var b [9]byte
		binary.BigEndian.PutUint64(b[:], uint64(i))
		b[8] = salt
		s := sha256.Sum256(b[:])
		hs, err := tlog.StoredHashes(i, s[:], m)
		if err != nil {
			t.Fatal(err)
		}
		m.hashes = append(m.hashes, hs...)
	}
}

type fx struct {
	w     *Witness
	logS  note.Signer
	wvkey string
}

func setup(t testing.TB, dir string, logSkey string) *fx {
	wskey, wvkey, err := GenerateKey("witness.test")
	if err != nil {
		t.Fatal(err)
	}
	return setupWith(t, dir, logSkey, wskey, wvkey)
}

func setupWith(t testing.TB, dir, logSkey, wskey, wvkey string) *fx {
	logS, err := note.NewSigner(logSkey)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := NewSigner(wskey)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(dir, ws, []string{vkeyOf(t, logSkey)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fx{w: w, logS: logS, wvkey: wvkey}
}

var vkeys = map[string]string{}

func vkeyOf(t testing.TB, skey string) string { return vkeys[skey] }

func (f *fx) cp(t *testing.T, m *memTree, n int64, s note.Signer) []byte {
	root, err := tlog.TreeHash(n, m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := note.Sign(&note.Note{Text: string(flog.Checkpoint{Origin: "log.test", Size: uint64(n), Hash: root[:]}.Marshal())}, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func body(old int64, proof []tlog.Hash, cp []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", old)
	for _, h := range proof {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]) + "\n")
	}
	b.WriteString("\n")
	b.Write(cp)
	return b.Bytes()
}

func status(err error) int {
	var r *refusal
	if errors.As(err, &r) {
		return r.status
	}
	if err == nil {
		return 200
	}
	return 500
}

// The witness cosigns a growing log, and refuses to go backwards, to fork,
// to skip the proof, an unknown log and a forged signature; a restart
// keeps what it cosigned.
func TestWitness(t *testing.T) {
	lskey, lvkey, _ := note.GenerateKey(nil, "log.test")
	vkeys[lskey] = lvkey
	dir := t.TempDir()
	f := setup(t, dir, lskey)
	m := &memTree{}
	grow(t, m, 0, 10, 0)
	sig, err := f.w.Add(body(0, nil, f.cp(t, m, 10, f.logS)))
	if err != nil {
		t.Fatal(err)
	}
	// The cosignature verifies as cosignature/v1 under the witness's key.
	v, _ := NewVerifier(f.wvkey)
	if _, err := note.Open(append(f.cp(t, m, 10, f.logS), sig...), note.VerifierList(v)); err != nil {
		t.Fatalf("cosignature: %v", err)
	}
	grow(t, m, 10, 50, 0)
	proof, _ := tlog.ProveTree(50, 10, m)
	if _, err := f.w.Add(body(10, proof, f.cp(t, m, 50, f.logS))); err != nil {
		t.Fatalf("growth: %v", err)
	}
	// A restart keeps the state.
	f2 := setup(t, dir, lskey)
	if s := status(firstErr(f2.w.Add(body(10, proof, f.cp(t, m, 50, f.logS))))); s != http.StatusConflict {
		t.Errorf("stale old after restart: %d", s)
	}
	// Backwards.
	if s := status(firstErr(f2.w.Add(body(50, nil, f.cp(t, m, 10, f.logS))))); s != http.StatusBadRequest {
		t.Errorf("backwards: %d", s)
	}
	// A fork: another history of 60 leaves.
	fork := &memTree{}
	grow(t, fork, 0, 60, 1)
	fproof, _ := tlog.ProveTree(60, 50, fork)
	if s := status(firstErr(f2.w.Add(body(50, fproof, f.cp(t, fork, 60, f.logS))))); s != http.StatusUnprocessableEntity {
		t.Errorf("fork: %d", s)
	}
	// Same size, other root.
	if s := status(firstErr(f2.w.Add(body(50, nil, f.cp(t, fork, 50, f.logS))))); s != http.StatusConflict {
		t.Errorf("same size, other root: %d", s)
	}
	// Forged: signed by another key of the same name.
	oskey, _, _ := note.GenerateKey(nil, "log.test")
	os, _ := note.NewSigner(oskey)
	if s := status(firstErr(f2.w.Add(body(50, nil, f.cp(t, m, 50, os))))); s != http.StatusForbidden {
		t.Errorf("forged: %d", s)
	}
	// Unknown log.
	uskey, _, _ := note.GenerateKey(nil, "other.test")
	us, _ := note.NewSigner(uskey)
	ucp, _ := note.Sign(&note.Note{Text: "other.test\n1\n" + base64.StdEncoding.EncodeToString(make([]byte, 32)) + "\n"}, us)
	if s := status(firstErr(f2.w.Add(body(0, nil, ucp)))); s != http.StatusNotFound {
		t.Errorf("unknown: %d", s)
	}
	// Malformed bodies.
	for _, b := range []string{"", "old x\n\n", "old 1\nnot-base64\n\nx", "old 01\n\nx"} {
		if s := status(firstErr(f2.w.Add([]byte(b)))); s != http.StatusBadRequest {
			t.Errorf("%q: %d", b, s)
		}
	}
	// Over HTTP: 409 carries the size as text/x.tlog.size.
	srv := httptest.NewServer(f2.w.Handler())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/add-checkpoint", "text/plain", bytes.NewReader(body(3, nil, f.cp(t, m, 50, f.logS))))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != 409 || resp.Header.Get("Content-Type") != "text/x.tlog.size" || buf.String() != "50\n" {
		t.Errorf("409: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), buf.String())
	}
	if r, _ := http.Get(srv.URL + "/add-checkpoint"); r.StatusCode != 405 {
		t.Errorf("GET: %d", r.StatusCode)
	}
}

func firstErr(_ []byte, err error) error { return err }

// FuzzAdd: any body gets a cosignature or a named refusal, never a panic.
func FuzzAdd(f *testing.F) {
	lskey, lvkey, _ := note.GenerateKey(nil, "log.test")
	vkeys[lskey] = lvkey
	dir := f.TempDir()
	fx := setup(f, dir, lskey)
	f.Add(body(0, nil, []byte("log.test\n1\nAAAA\n\n— log.test AAAA\n")))
	f.Add([]byte("old 3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\nlog.test\n5\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := fx.w.Add(b)
		if err != nil && status(err) == 500 {
			t.Fatalf("unnamed failure: %v", err)
		}
	})
}
