package cassettecheck

import (
	"crypto/ed25519"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

type expected struct {
	Verdict             string         `json:"verdict"`
	Exit                int            `json:"exit"`
	Checks              map[string]any `json:"checks"`
	ConsistencyFailures []string       `json:"consistency_failures"`
}

func sharedOptions(t *testing.T, dir string) Options {
	pem, err := os.ReadFile(filepath.Join(dir, "testkey.ed25519.pub.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := keys.ParsePublicKeyPEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	hk, err := os.ReadFile(filepath.Join(dir, "testkey.hmac.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return Options{Pinned: []ed25519.PublicKey{pub}, HMACKeys: [][]byte{TrimKey(hk)}}
}

func checksMap(c Checks) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(c)
	_ = json.Unmarshal(b, &m)
	return m
}

// TestSharedCases runs runback's 16 mutated cases with the verdict, checks
// and exit code runback's own verifier gives (cases/EXPECTED.json).
func TestSharedCases(t *testing.T) {
	dir := corpora.Require(t, "samples/runback", "runback's 16 cases with its verifier's verdicts")
	data, err := os.ReadFile(filepath.Join(dir, "cases", "EXPECTED.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]expected
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != 16 {
		t.Fatalf("%d cases, want 16", len(want))
	}
	opt := sharedOptions(t, dir)
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "cases", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Verify(data, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != w.Verdict || Exit(res.Verdict) != w.Exit {
				t.Errorf("verdict %s exit %d, want %s exit %d", res.Verdict, Exit(res.Verdict), w.Verdict, w.Exit)
			}
			if got := checksMap(res.Checks); !reflect.DeepEqual(got, w.Checks) {
				t.Errorf("checks %v\nwant   %v", got, w.Checks)
			}
			// EXPECTED.json abbreviates runback's reasons ("run.status
			// contradicts"); each must start with the same field name.
			if w.ConsistencyFailures != nil && len(w.ConsistencyFailures) != len(res.ConsistencyFailures) {
				t.Errorf("consistency_failures %q, want %q", res.ConsistencyFailures, w.ConsistencyFailures)
			}
			for i, r := range w.ConsistencyFailures {
				field, _, _ := strings.Cut(r, " ")
				if i < len(res.ConsistencyFailures) && !strings.HasPrefix(res.ConsistencyFailures[i], field+" ") {
					t.Errorf("consistency failure %q, want one about %s", res.ConsistencyFailures[i], field)
				}
			}
			if got := strings.Join(codes(res.Findings), ","); got != caseFindings[name] {
				t.Errorf("findings %q, want %q", got, caseFindings[name])
			}
		})
	}
}

// caseFindings is what the findings layer must name where runback is
// lenient (or where its verdict hides why).
var caseFindings = map[string]string{
	"zero-events":               EmptyRecord,
	"run-end-missing":           NoRunEnd,
	"events-reordered-seq-kept": SeqOutOfOrder,
	"duplicate-key-last-wins":   DuplicateKey,
	"lone-surrogate-string":     LoneSurrogate,
	"proto-key-in-event":        ProtoKey,
	"hmac-lowercase-alg":        UnknownSigAlg,
	"hmac-uppercase-hex":        HexUppercase,
	"schema-audit-v1":           UnknownSchema,
	"signature-value-empty":     SignedFlagMismatch,
}

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}

// TestSharedSamples runs the three sample cassettes with and without pins
// and keys, as PROVENANCE.md states runback's verifier judges them.
func TestSharedSamples(t *testing.T) {
	dir := corpora.Require(t, "samples/runback", "runback's three sample cassettes")
	opt := sharedOptions(t, dir)
	for _, c := range []struct {
		file    string
		opt     Options
		verdict string
		sig     string
	}{
		{"sample-cassette.unsigned.json", opt, Unverified, SigUnsigned},
		{"sample-cassette.ed25519-testkey.json", opt, Valid, SigValid},
		{"sample-cassette.ed25519-testkey.json", Options{}, Unverified, SigValidUnpinned},
		{"sample-cassette.hmac-testkey.json", opt, Valid, SigValid},
		{"sample-cassette.hmac-testkey.json", Options{}, Unverified, SigNoKey},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Verify(data, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != c.verdict || res.Checks.Signature != c.sig || !res.Integrity {
			t.Errorf("%s: %s/%s integrity %v, want %s/%s", c.file, res.Verdict, res.Checks.Signature, res.Integrity, c.verdict, c.sig)
		}
		if len(res.Findings) != 0 {
			t.Errorf("%s: findings %v on runback's own sample", c.file, codes(res.Findings))
		}
	}
}
