package oidcauth

import (
	"errors"
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
