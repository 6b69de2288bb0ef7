package fleet_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
)

var t0 = time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)

// TestEnrollment: a code is traded once for a credential, which names
// its developer until revoked; an expired, reused or forged code and a
// revoked or forged credential are each refused with their own error,
// and no secret is kept in clear.
func TestEnrollment(t *testing.T) {
	dir := t.TempDir()
	s, err := fleet.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	code, err := s.Enroll("acme", "dev1", nil, 24*time.Hour, t0, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok, c, err := s.Redeem(code, t0.Add(time.Hour), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if c.Tenant != "acme" || c.Subject != "dev1" || len(c.Roles) != 1 || c.Roles[0] != fleet.Developer {
		t.Errorf("credential %+v", c)
	}
	p, err := s.Lookup(tok)
	if err != nil || p.Subject != "dev1" || p.Tenant != "acme" || p.By != fleet.ByCredential || p.Credential != c.ID {
		t.Errorf("Lookup: %+v, %v", p, err)
	}
	if _, _, err := s.Redeem(code, t0.Add(time.Hour), rand.Reader); !errors.Is(err, fleet.ErrCodeUsed) {
		t.Errorf("reused code: %v, want ErrCodeUsed", err)
	}
	late, _ := s.Enroll("acme", "dev2", nil, time.Hour, t0, rand.Reader)
	if _, _, err := s.Redeem(late, t0.Add(time.Hour), rand.Reader); !errors.Is(err, fleet.ErrCodeExpired) {
		t.Errorf("expired code: %v, want ErrCodeExpired", err)
	}
	forged := fleet.CodePrefix + strings.Repeat("A", 43)
	for _, f := range []string{forged, "lbe_short", code + "x", ""} {
		if _, _, err := s.Redeem(f, t0, rand.Reader); !errors.Is(err, fleet.ErrCodeUnknown) {
			t.Errorf("forged code %q: %v, want ErrCodeUnknown", f, err)
		}
	}
	if _, err := s.Lookup(fleet.TokenPrefix + strings.Repeat("A", 43)); !errors.Is(err, fleet.ErrCredUnknown) {
		t.Errorf("forged credential: %v", err)
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Revoked {
		t.Fatalf("List: %+v, %v", list, err)
	}
	if _, err := s.Revoke(c.ID[:8]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup(tok); !errors.Is(err, fleet.ErrCredRevoked) {
		t.Errorf("revoked credential: %v, want ErrCredRevoked", err)
	}
	if list, _ := s.List(); len(list) != 1 || !list[0].Revoked {
		t.Errorf("List after revoke: %+v", list)
	}
	// No secret in clear, every file 0600.
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte(tok)) || bytes.Contains(b, []byte(code)) || strings.Contains(path, tok) {
			t.Errorf("%s holds a secret in clear", path)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", path, st.Mode())
		}
		return nil
	})
	if _, err := s.Enroll("acme", "no/slash", nil, time.Hour, t0, rand.Reader); !errors.Is(err, fleet.ErrName) {
		t.Errorf("bad name: %v", err)
	}
}

// TestAuthorize: the rule, for each role, own and other sessions, same
// and other tenant.
func TestAuthorize(t *testing.T) {
	dev := fleet.Principal{By: fleet.ByOIDC, Tenant: "acme", Subject: "dev1", Roles: []fleet.Role{fleet.Developer}}
	aud := fleet.Principal{By: fleet.ByOIDC, Tenant: "acme", Subject: "aud1", Roles: []fleet.Role{fleet.Auditor}}
	adm := fleet.Principal{By: fleet.ByOIDC, Tenant: "acme", Subject: "admin1", Roles: []fleet.Role{fleet.Admin}}
	appr := fleet.Principal{By: fleet.ByOIDC, Tenant: "acme", Subject: "appr1", Roles: []fleet.Role{fleet.Approver}}
	tok := fleet.Principal{By: fleet.ByToken}
	own := fleet.Owner{Tenant: "acme", Subject: "dev1"}
	other := fleet.Owner{Tenant: "acme", Subject: "dev2"}
	foreign := fleet.Owner{Tenant: "other", Subject: "dev1"}
	none := fleet.Owner{}
	for _, c := range []struct {
		p    fleet.Principal
		a    fleet.Action
		o    fleet.Owner
		want error
	}{
		{dev, fleet.Write, none, nil},
		{dev, fleet.Write, own, nil},
		{dev, fleet.Write, other, fleet.ErrNotOwner},
		{dev, fleet.Write, foreign, fleet.ErrOtherTenant},
		{dev, fleet.Read, own, nil},
		{dev, fleet.Read, other, fleet.ErrNotOwner},
		{dev, fleet.Read, foreign, fleet.ErrOtherTenant},
		{dev, fleet.Read, none, fleet.ErrNoOwner},
		{dev, fleet.Manage, fleet.Owner{Tenant: "acme"}, fleet.ErrRole},
		{aud, fleet.Read, other, nil},
		{aud, fleet.Read, foreign, fleet.ErrOtherTenant},
		{aud, fleet.Write, none, fleet.ErrRole},
		{aud, fleet.Write, own, fleet.ErrRole},
		{aud, fleet.Write, foreign, fleet.ErrRole},
		{adm, fleet.Manage, fleet.Owner{Tenant: "acme"}, nil},
		{adm, fleet.Manage, fleet.Owner{Tenant: "other"}, fleet.ErrOtherTenant},
		{adm, fleet.Read, own, fleet.ErrRole},
		{adm, fleet.Write, none, fleet.ErrRole},
		{appr, fleet.Approve, own, nil},
		{appr, fleet.Approve, foreign, fleet.ErrOtherTenant},
		{appr, fleet.Read, own, fleet.ErrRole},
		{dev, fleet.Approve, own, fleet.ErrRole},
		{tok, fleet.Read, other, nil},
		{tok, fleet.Write, own, fleet.ErrNotOwner},
		{tok, fleet.Write, none, nil},
		// The shared (hook) token manages no tenant: it would mint an
		// admin's enrollment code for any tenant.
		{tok, fleet.Manage, fleet.Owner{Tenant: "acme"}, fleet.ErrRole},
		// Nor approves: the agent holds it.
		{tok, fleet.Approve, own, fleet.ErrRole},
	} {
		err := fleet.Authorize(c.p, c.a, c.o)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s %s %+v: %v, want %v", c.p.Subject, c.a, c.o, err, c.want)
		}
	}
}
