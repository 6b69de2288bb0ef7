package dbstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestOwnerSubjects: a session's owner is what an OIDC subject may be
// (oidcauth: up to 191 bytes of printable UTF-8), kept and read back
// byte for byte: an ASCII column refused "dévelopeur" (the developer's
// every event then a 500) or, in a lax SQL mode, stored "d?veloppeur",
// which another subject could match.
func TestOwnerSubjects(t *testing.T) {
	ctx := context.Background()
	s, err := dbstore.Open(ctx, testmysql.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	fl, err := s.Fleet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, sub := range []string{"dévelopeur", "repo:acme/app:ref:refs/heads/main", strings.Repeat("é", 95)} {
		id := "s-" + string(rune('a'+i))
		o := fleet.Owner{Tenant: "acme", Subject: sub}
		if err := fl.Set(id, o); err != nil {
			t.Errorf("Set %q: %v", sub, err)
			continue
		}
		if got, err := fl.Owner(id); err != nil || got != o {
			t.Errorf("Owner %q: %q %v", sub, got.Subject, err)
		}
	}
}
