package sessionattest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// logged is a record sealed by a logbook-server, with its checkpoint
// sidecar and its proof of logging (cmd/logbook-verify's fixtures).
const logged = "../../testdata/bundles/logged"

var attestor = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))

// attestWith runs --type session with args (its flags) on the record.
func attestWith(t *testing.T, record string, args ...string) ([]byte, error) {
	t.Helper()
	var f Flags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	b, _, err := f.Attest([]string{filepath.Join(logged, "server.pub")}, record, attestor)
	return b, err
}

// verifyWith is logbook-verify --attestation-bundle B --attestor-key K
// with args, through verdictflags: the verdict's code, "" accepted.
func verifyWith(t *testing.T, record string, bundle []byte, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	bf, kf := filepath.Join(dir, "b.json"), filepath.Join(dir, "attestor.pub")
	_, pub, _ := keys.MarshalPair(attestor, attestor.Public().(ed25519.PublicKey))
	os.WriteFile(bf, bundle, 0o644)
	os.WriteFile(kf, pub, 0o644)
	var vf verdictflags.Flags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vf.Register(fs)
	if err := fs.Parse(append([]string{"--pubkey", filepath.Join(logged, "server.pub"), "--attestation-bundle", bf, "--attestor-key", kf}, args...)); err != nil {
		t.Fatal(err)
	}
	in, err := vf.Load()
	if err == nil {
		in, err = vf.Record(in, record, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	in.Record, _ = os.ReadFile(record)
	if err := runVerdict(in); err != nil {
		var r *format.RefusalError
		if !errors.As(err, &r) {
			t.Fatal(err)
		}
		return string(r.Code)
	}
	return ""
}

func TestLoggedSession(t *testing.T) {
	rec := filepath.Join(logged, "s1.record.json")
	srv := []string{"--checkpoint-key", filepath.Join(logged, "server.pub")}
	log := append(srv, "--log-policy", filepath.Join(logged, "w1.policy"))
	b, err := attestWith(t, rec, log...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"level":"logged"`, `"logProof":{`, `"format":"c2sp.org/tlog-proof@v1"`} {
		if !strings.Contains(string(payload(t, b)), want) {
			t.Errorf("the statement lacks %s", want)
		}
	}
	if c := verifyWith(t, rec, b, log...); c != "" {
		t.Errorf("verified as it was attested: %s", c)
	}
	// Checked with less than it states: refused, saying what to give.
	if c := verifyWith(t, rec, b, srv...); c != string(format.AttestInvalid) {
		t.Errorf("a logged bundle checked at level server: %q, want ATTEST_INVALID", c)
	}
	// About another record of the server.
	if c := verifyWith(t, filepath.Join(logged, "s2.record.json"), b); c != string(format.AttestInvalid) {
		t.Errorf("another record: %q, want ATTEST_INVALID", c)
	}
	// A bundle stating less than holds is true: accepted.
	local, err := attestWith(t, rec)
	if err != nil {
		t.Fatal(err)
	}
	if c := verifyWith(t, rec, local, log...); c != "" {
		t.Errorf("a local bundle checked at level logged: %s", c)
	}
	// A refused record is never attested.
	_, err = attestWith(t, "../../testdata/records/fail_CHAIN_BROKEN_edited_step.json")
	var r *format.RefusalError
	if !errors.As(err, &r) || r.Code != format.ChainBroken {
		t.Errorf("an edited record: %v, want CHAIN_BROKEN", err)
	}
}

func runVerdict(in verdict.Inputs) error {
	out := verdict.Run(in)
	return out.Err()
}

// payload is a bundle's statement.
func payload(t *testing.T, b []byte) []byte {
	t.Helper()
	v, err := strictjson.Parse(b, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := v.Get("dsseEnvelope").GetString("payload")
	body, err := base64.StdEncoding.DecodeString(p)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

var updateFixtures = flag.Bool("update-attestation", false, "rewrite testdata/attestation")

// fixtures is testdata/attestation: bundles about testdata/bundles/logged's
// s1 record, each named for what logbook-verify must answer (README.md
// there). Signing is deterministic (Ed25519, canonical JSON): the files
// are what this test makes, byte for byte.
const fixtures = "../../testdata/attestation"

func TestFixtures(t *testing.T) {
	s1, s2 := filepath.Join(logged, "s1.record.json"), filepath.Join(logged, "s2.record.json")
	log := []string{"--checkpoint-key", filepath.Join(logged, "server.pub"), "--log-policy", filepath.Join(logged, "w1.policy")}
	good, err := attestWith(t, s1, log...)
	if err != nil {
		t.Fatal(err)
	}
	other, err := attestWith(t, s2, log...)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	i := bytes.Index(flipped, []byte(`"sig":"`)) + 10
	flipped[i] ^= 'A' ^ 'B'
	_, pub, _ := keys.MarshalPair(attestor, attestor.Public().(ed25519.PublicKey))
	files := []struct {
		name string
		data []byte
		want string // logbook-verify's code with README.md's flags; "" accepted
	}{
		{"attestor.pub", pub, ""},
		{"good_s1.bundle.json", good, ""},
		{"fail_ATTEST_INVALID_other_record.bundle.json", other, "ATTEST_INVALID"},
		{"fail_ATTEST_INVALID_flipped_sig.bundle.json", flipped, "ATTEST_INVALID"},
	}
	for _, f := range files {
		p := filepath.Join(fixtures, f.name)
		if *updateFixtures {
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if have, err := os.ReadFile(p); err != nil || !bytes.Equal(have, f.data) {
			t.Errorf("%s is not what this test makes (go test ./internal/sessionattest -run TestFixtures -update-attestation): %v", p, err)
		}
		if !strings.HasSuffix(f.name, ".bundle.json") {
			continue
		}
		if c := verifyWith(t, s1, f.data, log...); c != f.want || !strings.HasPrefix(f.name, "fail_"+c) && c != "" {
			t.Errorf("%s: %q, want %q", f.name, c, f.want)
		}
	}
}
