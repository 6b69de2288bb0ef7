package policy_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/record"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func roots(t *testing.T, path string) *x509.CertPool {
	p, err := identity.ParseRoots(read(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOrder: a refusal before step 8 is kept; identity is judged before
// the timestamp, with the token's time when it verified; a refusal empties
// the report.
func TestOrder(t *testing.T) {
	tsaRoots, idRoots := roots(t, "pki/tsa-roots.pem"), roots(t, "pki/identity-roots.pem")
	id := &identity.Policy{Roots: idRoots, Trusted: []string{"dev@example.com"}}
	all := policy.Options{TSARoots: tsaRoots, Identity: id}

	broken := record.Verify(read(t, "records/fail_SIGNATURE_INVALID_goal.json"), record.Options{})
	if res, rep := policy.Check(broken, all); res.Code != format.SignatureInvalid || rep.Timestamp != nil {
		t.Errorf("a broken record: %+v", res)
	}
	// No token and no identity: the identity code comes first.
	good := record.Verify(read(t, "records/good_basic.json"), record.Options{})
	if res, rep := policy.Check(good, all); res.Code != format.IdentityUntrusted || rep.Identity != "" {
		t.Errorf("nothing to check: %+v", res)
	}
	if res, _ := policy.Check(good, policy.Options{TSARoots: tsaRoots}); res.Code != format.TimestampMissing {
		t.Errorf("no token: %+v", res)
	}
	// The short-lived certificate is valid at endedAt and expired at the
	// token's time: which time is used depends on whether the token is trusted.
	short := record.Verify(read(t, "records/policy/fail_IDENTITY_UNTRUSTED_expired_at_token_time.json"), record.Options{})
	if res, _ := policy.Check(short, all); res.Code != format.IdentityUntrusted {
		t.Errorf("trusted token time: %+v", res)
	}
	res, rep := policy.Check(short, policy.Options{Identity: id})
	if !res.OK || rep.Identity != "dev@example.com" || rep.Timestamp == nil || rep.Timestamp.Trusted {
		t.Errorf("endedAt: %+v %+v", res, rep)
	}
	// Nothing asked: the report still names the token, untrusted.
	if res, rep := policy.Check(short, policy.Options{}); !res.OK || rep.Timestamp == nil || rep.Timestamp.Authority == "" {
		t.Errorf("nothing asked: %+v %+v", res, rep)
	}
}

// FuzzCheck: with every check asked, no record makes the policy checks
// panic, and every verdict is a known code.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/records/policy/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	known := map[format.Code]bool{"": true}
	for _, c := range format.Codes {
		known[c] = true
	}
	var opt policy.Options
	f.Fuzz(func(t *testing.T, data []byte) {
		if opt.TSARoots == nil {
			opt = policy.Options{TSARoots: roots(t, "pki/tsa-roots.pem"),
				Identity:     &identity.Policy{Roots: roots(t, "pki/identity-roots.pem"), Trusted: []string{"dev@example.com"}},
				Attestations: [][]byte{read(t, "records/policy/attestations/witness.dsse.json")},
				AttestorKeys: []ed25519.PublicKey{ed25519.PublicKey(make([]byte, 32))}}
		}
		res, _ := policy.Check(record.Verify(data, record.Options{}), opt)
		if !known[res.Code] || res.OK != (res.Code == "") {
			t.Fatalf("verdict %+v", res)
		}
	})
}
