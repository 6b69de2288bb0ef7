package record_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestJSONTestSuite: every n_ file is NOT_JSON; every y_ file is valid JSON
// but not a record (SHAPE), except the two duplicate-key files (NOT_JSON);
// every i_ file is one of the two; nothing panics.
func TestJSONTestSuite(t *testing.T) {
	files := corpora.Glob(t, "corpora/jsontestsuite/*.json", "JSONTestSuite (318 parser cases) against the verifier")
	if len(files) != 318 {
		t.Fatalf("found %d JSONTestSuite files, want 318", len(files))
	}
	counts := map[string]int{}
	for _, f := range files {
		name := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res := record.Verify(data, record.Options{})
		counts[name[:1]+" "+string(res.Code)]++
		switch {
		case strings.HasPrefix(name, "n_"):
			if res.Code != format.NotJSON {
				t.Errorf("%s: got %s (%s), want NOT_JSON", name, res.Code, res.Detail)
			}
		case name == "y_object_duplicated_key.json" || name == "y_object_duplicated_key_and_value.json":
			if res.Code != format.NotJSON {
				t.Errorf("%s: got %s, want NOT_JSON (duplicate key)", name, res.Code)
			}
		case strings.HasPrefix(name, "y_"):
			if res.Code != format.Shape {
				t.Errorf("%s: got %s (%s), want SHAPE", name, res.Code, res.Detail)
			}
		case strings.HasPrefix(name, "i_"):
			if res.Code != format.Shape && res.Code != format.NotJSON {
				t.Errorf("%s: got %s, want NOT_JSON or SHAPE", name, res.Code)
			}
		}
	}
	t.Logf("verdicts: %v", counts)
}

// TestWycheproof runs the Wycheproof Ed25519 verification vectors through
// the verifier's key check and signature check: valid vectors pass, invalid
// ones fail.
func TestWycheproof(t *testing.T) {
	raw, err := os.ReadFile(corpora.Require(t, "corpora/ed25519/ed25519_test.json", "Wycheproof Ed25519 vectors (151)"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		TestGroups []struct {
			PublicKey struct{ Pk string } `json:"publicKey"`
			Tests     []struct {
				TcID   int    `json:"tcId"`
				Msg    string `json:"msg"`
				Sig    string `json:"sig"`
				Result string `json:"result"`
			} `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range suite.TestGroups {
		pk, _ := hex.DecodeString(g.PublicKey.Pk)
		for _, tc := range g.Tests {
			msg, _ := hex.DecodeString(tc.Msg)
			sig, _ := hex.DecodeString(tc.Sig)
			ok := record.WeakKey(pk) == "" && len(sig) == ed25519.SignatureSize && ed25519.Verify(pk, msg, sig)
			if ok != (tc.Result == "valid") {
				t.Errorf("tcId %d: accepted=%v, want %s", tc.TcID, ok, tc.Result)
			}
			n++
		}
	}
	if n != 151 {
		t.Fatalf("ran %d vectors, want 151", n)
	}
}

// TestSignInput: signing is RFC 8032 pure Ed25519, byte for byte, on the
// 1024 known answers of sign.input (which also fixes determinism).
func TestSignInput(t *testing.T) {
	raw, err := os.ReadFile(corpora.Require(t, "corpora/ed25519/sign.input", "RFC 8032 sign.input known answers (1024)"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 1024 {
		t.Fatalf("%d lines, want 1024", len(lines))
	}
	for i, line := range lines {
		f := strings.Split(line, ":")
		sk, _ := hex.DecodeString(f[0])
		msg, _ := hex.DecodeString(f[2])
		want, _ := hex.DecodeString(f[3])
		priv := ed25519.NewKeyFromSeed(sk[:32])
		sig := ed25519.Sign(priv, msg)
		if !bytes.Equal(sig, want[:64]) {
			t.Fatalf("line %d: signature differs", i+1)
		}
		if record.WeakKey(priv.Public().(ed25519.PublicKey)) != "" {
			t.Fatalf("line %d: a sound key is called weak", i+1)
		}
	}
}

// TestAssembleDeterministic: same steps, same key, same bytes.
func TestAssembleDeterministic(t *testing.T) {
	k := fixtureKey("fixture")
	a, b := assemble(baseSteps(), k), assemble(baseSteps(), k)
	if !bytes.Equal(a, b) {
		t.Fatal("sealing twice gave different bytes")
	}
	res := record.Verify(a, record.Options{Pinned: []ed25519.PublicKey{k.Public().(ed25519.PublicKey)}})
	if !res.OK || !res.Pinned || res.StepCount != 5 || len(res.RecordID) != 64 || len(res.KeyID) != 64 {
		t.Fatalf("unexpected result %+v", res)
	}
}
