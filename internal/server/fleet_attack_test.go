package server_test

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
)

// TestFleetSharedTokenManagesNothing: the hooks' shared token may not
// mint an enrollment code (an admin's, for any tenant) nor list a
// tenant's credentials.
func TestFleetSharedTokenManagesNothing(t *testing.T) {
	ff := newFleet(t)
	st, body := do(t, "POST", ff.ts.URL+"/v1/admin/enroll", "hook-token", []byte(`{"tenant":"acme","developer":"mallory","roles":["admin","auditor"],"ttl":"1h"}`))
	if st != 403 || errCode(body) != "FORBIDDEN" {
		t.Errorf("the shared token enrolling an admin: %d %s", st, body)
	}
	if st, body := do(t, "GET", ff.ts.URL+"/v1/admin/credentials?tenant=acme", "hook-token", nil); st != 403 {
		t.Errorf("the shared token listing acme's credentials: %d %s", st, body)
	}
}

// TestFleetRevokeAcrossTenants: an admin names a credential by a prefix
// of its id that a revoked credential of its own tenant shares with a
// live one of another tenant; the route must not take the revoked one's
// tenant for the live one's.
func TestFleetRevokeAcrossTenants(t *testing.T) {
	ff := newFleet(t)
	dir := filepath.Join(ff.dir, "data", "fleet", "credentials")
	put := func(name string, c fleet.Credential) {
		b, _ := json.Marshal(c)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	victim := "abcd1234" + strings.Repeat("a", 56)
	put(victim+".json", fleet.Credential{ID: victim[:16], Tenant: "acme", Subject: "victim", Roles: []fleet.Role{fleet.Developer}})
	own := "abcd1234" + strings.Repeat("b", 56)
	put(own+".revoked", fleet.Credential{ID: own[:16], Tenant: "zzz", Subject: "old", Roles: []fleet.Role{fleet.Developer}})
	code, err := ff.store.Enroll("zzz", "boss", []fleet.Role{fleet.Admin}, time.Hour, time.Now(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	st, body := do(t, "POST", ff.ts.URL+"/v1/enroll", "", []byte(`{"code":"`+code+`"}`))
	if st != 200 {
		t.Fatalf("enroll: %d %s", st, body)
	}
	var out struct{ Credential string }
	json.Unmarshal([]byte(body), &out)
	if st, body := do(t, "POST", ff.ts.URL+"/v1/admin/credentials/abcd1234/revoke", out.Credential, nil); st != 403 {
		t.Errorf("zzz's admin revoking by a prefix acme's credential shares: %d %s", st, body)
	}
	if _, err := os.Stat(filepath.Join(dir, victim+".json")); err != nil {
		t.Errorf("acme's credential: %v", err)
	}
}
