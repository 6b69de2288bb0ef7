package main

import (
	"bytes"
	"crypto/ed25519"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

var updateBundles = flag.Bool("update-bundles", false, "rewrite testdata/bundles")

const bundleDir = "../../testdata/bundles"

// TestBundleFixtureFiles: each file in testdata/bundles named
// fail_CODE_*.json is refused with CODE by logbook-verify --bundle
// --trust signer.pub, and each good_*.json is accepted. The files are
// made by this test with -update-bundles, from the project's synthesized
// session signed with reviewtest.Key: the same bytes on every run.
func TestBundleFixtureFiles(t *testing.T) {
	if *updateBundles {
		writeBundleFixtures(t)
	}
	files, _ := filepath.Glob(filepath.Join(bundleDir, "*.json"))
	if len(files) < 6 {
		t.Fatalf("%d bundle fixtures; run go test ./cmd/logbook-verify -run TestBundleFixtureFiles -update-bundles", len(files))
	}
	codes := map[string]int{}
	for _, f := range files {
		name := filepath.Base(f)
		code, out := runVerify(t, "--bundle", f, "--trust", filepath.Join(bundleDir, "signer.pub"))
		switch {
		case strings.HasPrefix(name, "good_"):
			if code != 0 || !strings.HasPrefix(out, "OK ") {
				t.Errorf("%s: %d %s", name, code, out)
			}
		case strings.HasPrefix(name, "fail_"):
			c := ""
			for _, k := range append([]format.Code{format.BundleInvalid, format.BundleKeyMismatch}, format.Codes...) {
				if strings.HasPrefix(name, "fail_"+string(k)+"_") {
					c = string(k)
				}
			}
			if code != 1 || !strings.HasPrefix(out, "REFUSED "+c+":") {
				t.Errorf("%s: %d %s, want %s", name, code, out, c)
			}
			codes[c]++
		}
	}
	for _, c := range []string{"BUNDLE_INVALID", "BUNDLE_KEY_MISMATCH"} {
		if codes[c] < 2 {
			t.Errorf("%s: %d fixtures, want at least 2", c, codes[c])
		}
	}
}

func writeBundleFixtures(t *testing.T) {
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	_, pubPEM, _ := keys.MarshalPair(reviewtest.Key, reviewtest.Key.Public().(ed25519.PublicKey))
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	_, otherPEM, _ := keys.MarshalPair(other, other.Public().(ed25519.PublicKey))
	good, err := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM)})
	if err != nil {
		t.Fatal(err)
	}
	withCP, _ := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), Checkpoints: [][]byte{[]byte("logbook.example/checkpoint\ns1\n24\n\n— logbook.example AAAA\n")}})
	withProof, _ := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), LogProofs: [][]byte{[]byte("c2sp.org/tlog-proof@v1\nindex 0\n\nlogbook.example/log\n")}})
	esc := func(pem []byte) string { return strings.ReplaceAll(strings.TrimSpace(string(pem)), "\n", `\n`) }
	swap := func(from, to string) []byte {
		out := bytes.Replace(good, []byte(from), []byte(to), 1)
		if bytes.Equal(out, good) {
			t.Fatalf("no %q in the bundle", from)
		}
		return out
	}
	files := map[string][]byte{
		"good_record_and_key.json":                  good,
		"good_with_checkpoint.json":                 withCP,
		"fail_BUNDLE_INVALID_unknown_member.json":   swap(`"format"`, `"extra": 1, "format"`),
		"fail_BUNDLE_INVALID_other_format.json":     swap(`logbook/bundle@0`, `logbook/bundle@1`),
		"fail_BUNDLE_INVALID_other_media_type.json": swap(`bundle.v0+json`, `bundle.v9+json`),
		"fail_BUNDLE_INVALID_duplicate_member.json": swap(`"format"`, `"signerKey": "x", "format"`),
		"fail_BUNDLE_INVALID_log_proof_object.json": bytes.Replace(withProof, []byte(`"logProofs": ["`), []byte(`"logProofs": [{}, "`), 1),
		"fail_BUNDLE_INVALID_two_log_proofs.json":   bytes.Replace(withProof, []byte(`"logProofs": ["`), []byte(`"logProofs": ["x", "`), 1),
		"fail_BUNDLE_KEY_MISMATCH_other_key.json":   swap(esc(pubPEM), esc(otherPEM)),
		"fail_BUNDLE_KEY_MISMATCH_key_of_other.json": func() []byte {
			// A record signed by the other key, bundled with the trusted
			// key's PEM: under --trust signer.pub the record is
			// SIGNER_NOT_TRUSTED, and the bundle's key part is the lie.
			r2, _ := reviewtest.RecordWith(reviewtest.Session, other)
			b, _ := bundle.Write(&bundle.Bundle{Record: r2, SignerKey: string(pubPEM)})
			return b
		}(),
		"fail_CHAIN_BROKEN_edited_step.json":       swap(`make lint`, `make fmt`),
		"fail_SIGNATURE_INVALID_changed_goal.json": swap(`"goal":"test"`, `"goal":"tests"`),
	}
	os.MkdirAll(bundleDir, 0o755)
	old, _ := filepath.Glob(filepath.Join(bundleDir, "*.json"))
	for _, f := range old {
		os.Remove(f)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(bundleDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bundleDir, "signer.pub"), pubPEM, 0o644); err != nil {
		t.Fatal(err)
	}
}
