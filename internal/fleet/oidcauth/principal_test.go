package oidcauth

import (
	"errors"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/fleet"
)

// TestSubjectControls: a subject claim is written into every step's
// actor and printed in the verifier's ACTOR_MISMATCH line; one holding
// a C1 control (U+009B is a terminal's CSI), a bidi override or invalid
// UTF-8 is refused OIDC_CLAIMS like one holding ESC.
func TestSubjectControls(t *testing.T) {
	is := &issuer{cfg: Issuer{Issuer: "https://op", SubjectClaim: "sub", Tenant: "acme", Roles: []fleet.Role{fleet.Developer}}}
	for _, sub := range []string{"dev\x1b[8m", "dev\u009b8m", "dev\u202egnp.exe", "dev\xff", "dev\u2028x", ""} {
		if _, err := is.principal(map[string]any{"sub": sub}); !errors.Is(err, ErrClaims) {
			t.Errorf("subject %q: %v", sub, err)
		}
	}
	if p, err := is.principal(map[string]any{"sub": "Dev One (CI) é"}); err != nil || p.Subject != "Dev One (CI) é" {
		t.Errorf("a plain subject: %+v %v", p, err)
	}
}

// TestClaimsFitTheIndex: the index keeps a tenant in 64 bytes and a
// developer in 191; a longer tenant claim or subject left every session
// of theirs out of search and coverage (index.ErrTooLong), so it is
// refused OIDC_CLAIMS, and a configured tenant that could not be named
// is refused at start.
func TestClaimsFitTheIndex(t *testing.T) {
	is := &issuer{cfg: Issuer{Issuer: "https://op", SubjectClaim: "sub", TenantClaim: "tenant", Roles: []fleet.Role{fleet.Developer}}}
	for _, c := range []map[string]any{
		{"sub": strings.Repeat("d", 192), "tenant": "acme"},
		{"sub": "dev1", "tenant": strings.Repeat("t", 65)},
	} {
		if _, err := is.principal(c); !errors.Is(err, ErrClaims) {
			t.Errorf("%d-byte subject, %d-byte tenant: %v", len(c["sub"].(string)), len(c["tenant"].(string)), err)
		}
	}
	if _, err := is.principal(map[string]any{"sub": strings.Repeat("d", 191), "tenant": strings.Repeat("t", 64)}); err != nil {
		t.Errorf("the longest: %v", err)
	}
	for _, tenant := range []string{"a/b", strings.Repeat("t", 65)} {
		if _, err := New(Config{Issuers: []Issuer{{Issuer: "https://op", Audiences: []string{"x"}, Tenant: tenant, Roles: []fleet.Role{fleet.Developer}}}}, nil, nil); err == nil {
			t.Errorf("tenant %q accepted", tenant)
		}
	}
}
