package logbook_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// TestVerifyFixtures runs every record fixture through the public Verify:
// a fixture named good_… is accepted, fail_CODE_… is refused with CODE as
// a *RefusalError. Options come from DIR/options/NAME as the record
// package's fixture test reads them (pinned: keys/fixture.key.pub).
func TestVerifyFixtures(t *testing.T) {
	for _, dir := range []string{"records", "records/policy"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if len(files) < 10 {
			t.Fatalf("%s: %d fixtures", dir, len(files))
		}
		for _, f := range files {
			name := filepath.Base(f)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := logbook.Verify(data, options(t, dir, name))
			want := ""
			if rest, ok := strings.CutPrefix(name, "fail_"); ok {
				for _, c := range []logbook.Code{logbook.NotJSON, logbook.Shape, logbook.StepOutOfOrder, logbook.ChainBroken,
					logbook.StepCountMismatch, logbook.TipMismatch, logbook.SignatureInvalid, logbook.KeyRevoked, logbook.SignerNotTrusted,
					logbook.IdentityKeyMismatch, logbook.IdentityUntrusted, logbook.IdentityNotAllowed, logbook.TimestampMissing,
					logbook.TimestampInvalid, logbook.AttestKeyIDMismatch, logbook.RecorderDigestMismatch, logbook.AttestInvalid, logbook.Tombstoned} {
					if strings.HasPrefix(rest, string(c)+"_") {
						want = string(c)
					}
				}
			}
			var r *logbook.RefusalError
			switch {
			case want == "" && err != nil:
				t.Errorf("%s/%s: %v", dir, name, err)
			case want == "" && (v == nil || len(v.RecordID) != 64):
				t.Errorf("%s/%s: accepted without a record id", dir, name)
			case want != "" && (!errors.As(err, &r) || string(r.Code) != want || v != nil):
				t.Errorf("%s/%s: got %v, want %s", dir, name, err, want)
			}
			if strings.Contains(name, "timestamp_trusted") && (v == nil || v.Timestamp == nil || !v.Timestamp.Trusted) {
				t.Errorf("%s: timestamp not reported as trusted", name)
			}
			if strings.Contains(name, "recorder_and_witness") && (v == nil || len(v.Attestations) != 2) {
				t.Errorf("%s: attestations %+v", name, v)
			}
		}
	}
}

func options(t *testing.T, dir, name string) logbook.VerifyOptions {
	var opt logbook.VerifyOptions
	text, err := os.ReadFile(filepath.Join("testdata", dir, "options", name))
	if os.IsNotExist(err) {
		text = []byte("{}")
	} else if err != nil {
		t.Fatal(err)
	}
	v, err := strictjson.Parse(text, strictjson.Options{MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pub := func(p string) ed25519.PublicKey {
		k, err := keys.ParsePublicKeyPEM(read(p))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	roots := func(p string) *x509.CertPool {
		pool, err := identity.ParseRoots(read(p))
		if err != nil {
			t.Fatal(err)
		}
		return pool
	}
	pinned := []string{"keys/fixture.key.pub"}
	for _, m := range v.Members {
		var list []string
		for _, it := range m.Value.Items {
			list = append(list, it.Str)
		}
		switch m.Key {
		case "pubkey":
			pinned = list
		case "revoked":
			for _, p := range list {
				opt.Revoked = append(opt.Revoked, pub(p))
			}
		case "attestation":
			for _, p := range list {
				opt.Attestations = append(opt.Attestations, read(p))
			}
		case "attestorKey":
			for _, p := range list {
				opt.AttestorKeys = append(opt.AttestorKeys, pub(p))
			}
		case "tsaRoots":
			opt.TimestampRoots = roots(m.Value.Str)
		case "identityRoots":
			opt.IdentityRoots = roots(m.Value.Str)
		case "trustedIdentities":
			if opt.TrustedIdentities, err = identity.ParseTrusted(read(m.Value.Str)); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("%s: unknown option %q", name, m.Key)
		}
	}
	for _, p := range pinned {
		opt.Pinned = append(opt.Pinned, pub(p))
	}
	return opt
}

// TestVerifyAttestationBundle: VerifyOptions.AttestationBundles checks
// testdata/attestation's bundles against the record they are about: a
// record whose level is local here, so the good bundle (level logged) is
// refused too, and says why.
func TestVerifyAttestationBundle(t *testing.T) {
	rec := read(t, "testdata/bundles/logged/s1.record.json")
	pub, err := keys.ParsePublicKeyPEM(read(t, "testdata/attestation/attestor.pub"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"good_s1":                          "level logged, this check reached local",
		"fail_ATTEST_INVALID_other_record": "recordId",
	} {
		_, err := logbook.Verify(rec, logbook.VerifyOptions{AttestorKeys: []ed25519.PublicKey{pub},
			AttestationBundles: [][]byte{read(t, "testdata/attestation/"+name+".bundle.json")}})
		var r *logbook.RefusalError
		if !errors.As(err, &r) || r.Code != logbook.AttestInvalid || !strings.Contains(r.Detail, want) {
			t.Errorf("%s: %v, want ATTEST_INVALID saying %q", name, err, want)
		}
	}
}
