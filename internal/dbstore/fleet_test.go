package dbstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestFleetShared: two replicas' handles on one database share one
// fleet. A code enrolled on one is redeemed once of 8 tries spread over
// both; the credential is looked up on the other; its revocation on one
// is refused on the other at its next lookup; a session's owner is set
// once; the database holds no secret, only SHA-256s.
func TestFleetShared(t *testing.T) {
	dsn := testmysql.DSN(t)
	ctx := context.Background()
	var fl [2]*dbstore.Fleet
	for i := range fl {
		s, err := dbstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if fl[i], err = s.Fleet(ctx); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	code, err := fl[0].Enroll("acme", "dev1", nil, time.Hour, now, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var toks []string
	var used int
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			tok, _, err := fl[i%2].Redeem(code, now, rand.Reader)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				toks = append(toks, tok)
			case errors.Is(err, fleet.ErrCodeUsed):
				used++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(toks) != 1 || used != 7 {
		t.Fatalf("%d credentials, %d refused as used: want 1 and 7", len(toks), used)
	}
	p, err := fl[1].Lookup(toks[0])
	if err != nil || p.Tenant != "acme" || p.Subject != "dev1" || !p.Has(fleet.Developer) || p.By != fleet.ByCredential {
		t.Fatalf("lookup on the other replica: %+v %v", p, err)
	}
	if _, err := fl[0].Lookup(fleet.TokenPrefix + strings.Repeat("A", 43)); !errors.Is(err, fleet.ErrCredUnknown) {
		t.Errorf("unknown credential: %v", err)
	}
	expired, _ := fl[0].Enroll("acme", "dev2", []fleet.Role{fleet.Auditor}, time.Minute, now, rand.Reader)
	if _, _, err := fl[1].Redeem(expired, now.Add(time.Minute), rand.Reader); !errors.Is(err, fleet.ErrCodeExpired) {
		t.Errorf("expired code: %v", err)
	}
	if _, _, err := fl[1].Redeem(fleet.CodePrefix+strings.Repeat("A", 43), now, rand.Reader); !errors.Is(err, fleet.ErrCodeUnknown) {
		t.Errorf("unknown code: %v", err)
	}
	list, err := fl[1].List()
	if err != nil || len(list) != 1 || list[0].ID != p.Credential || list[0].Revoked {
		t.Fatalf("list: %+v %v", list, err)
	}
	if _, err := fl[0].Revoke(p.Credential[:8]); err != nil {
		t.Fatal(err)
	}
	if _, err := fl[1].Lookup(toks[0]); !errors.Is(err, fleet.ErrCredRevoked) {
		t.Errorf("revoked on replica 0, looked up on replica 1: %v", err)
	}
	if _, err := fl[1].Revoke(p.Credential); !errors.Is(err, fleet.ErrCredRevoked) {
		t.Errorf("revoked twice: %v", err)
	}
	if _, err := fl[1].Revoke("zz"); err == nil {
		t.Error("a malformed id is revoked")
	}

	dev1, dev2 := fleet.Owner{Tenant: "acme", Subject: "dev1"}, fleet.Owner{Tenant: "acme", Subject: "dev2"}
	if o, err := fl[0].Owner("S"); err != nil || o != (fleet.Owner{}) {
		t.Fatalf("no owner yet: %+v %v", o, err)
	}
	if err := fl[0].Set("S", dev1); err != nil {
		t.Fatal(err)
	}
	if err := fl[1].Set("S", dev1); err != nil {
		t.Errorf("its owner again: %v", err)
	}
	if err := fl[1].Set("S", dev2); !errors.Is(err, fleet.ErrNotOwner) {
		t.Errorf("a second owner: %v", err)
	}
	if o, _ := fl[1].Owner("S"); o != dev1 {
		t.Errorf("owner %+v, want dev1", o)
	}
	if o, _ := fl[1].Owner("s"); o != (fleet.Owner{}) {
		t.Errorf("session ids are compared byte for byte: s has %+v", o)
	}

	// Only hashes: no secret is in any of the fleet's tables.
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, secret := range []string{code, toks[0], expired} {
		var n int
		err := db.QueryRow("SELECT (SELECT COUNT(*) FROM `logbook_fleet_enroll` WHERE `hash` = ? OR `hash` = ?) + "+
			"(SELECT COUNT(*) FROM `logbook_fleet_credentials` WHERE `hash` = ? OR `hash` = ?)",
			secret, fleet.Hash(secret), secret, fleet.Hash(secret)).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("secret %s…: %d rows by it or its hash, want 1, its hash's (%v)", secret[:8], n, err)
		}
	}
}
