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
	if c, rep := check(broken, all); c != format.SignatureInvalid || rep.Timestamp != nil {
		t.Errorf("a broken record: %s %+v", c, rep)
	}
	// No token and no identity: the identity code comes first.
	good := record.Verify(read(t, "records/good_basic.json"), record.Options{})
	if c, rep := check(good, all); c != format.IdentityUntrusted || rep.Identity != "" {
		t.Errorf("nothing to check: %s", c)
	}
	if c, _ := check(good, policy.Options{TSARoots: tsaRoots}); c != format.TimestampMissing {
		t.Errorf("no token: %s", c)
	}
	// The short-lived certificate is valid at endedAt and expired at the
	// token's time: which time is used depends on whether the token is trusted.
	short := record.Verify(read(t, "records/policy/fail_IDENTITY_UNTRUSTED_expired_at_token_time.json"), record.Options{})
	if c, _ := check(short, all); c != format.IdentityUntrusted {
		t.Errorf("trusted token time: %s", c)
	}
	c, rep := check(short, policy.Options{Identity: id})
	if c != "" || rep.Identity != "dev@example.com" || rep.Timestamp == nil || rep.Timestamp.Trusted {
		t.Errorf("endedAt: %s %+v", c, rep)
	}
	// Nothing asked: the report still names the token, untrusted.
	if c, rep := check(short, policy.Options{}); c != "" || rep.Timestamp == nil || rep.Timestamp.Authority == "" {
		t.Errorf("nothing asked: %s %+v", c, rep)
	}
}

// check is policy.Check's verdict on res: res's own refusal, else the
// policy's code ("" accepted), and the report.
func check(res record.Result, opt policy.Options) (format.Code, policy.Report) {
	rep, err := policy.Check(res, opt)
	if !res.OK {
		return res.Code, rep
	}
	if err != nil && (rep.Timestamp != nil || rep.Identity != "" || rep.Attestations != nil || format.CodeOf(err) == "") {
		panic("a refusal with a report, or an error that is no refusal")
	}
	return format.CodeOf(err), rep
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
		res := record.Verify(data, record.Options{})
		if c, _ := check(res, opt); !known[c] || res.OK != (res.Code == "") {
			t.Fatalf("verdict %s %+v", c, res)
		}
	})
}
