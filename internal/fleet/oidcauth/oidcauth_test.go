package oidcauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
	"github.com/logbook-project/logbook/internal/testkit/oidcop"
)

// Config is the configuration the tests give a server for provider p:
// tenant and roles from the provider's claims.
func Config(p *oidcop.Provider) oidcauth.Config {
	return oidcauth.Config{Issuers: []oidcauth.Issuer{{Issuer: p.Issuer, Audiences: []string{oidcop.Audience, oidcop.ConsoleClient},
		TenantClaim: "tenant", RolesClaim: "roles"}}}
}

// TestVerify: tokens of the real provider (client credentials and the
// code flow) are taken, with their tenant and roles; the wrong issuer,
// the wrong audience, an expired token, alg none and a forged signature
// are each refused with their own error.
func TestVerify(t *testing.T) {
	p := oidcop.Start(t)
	other := oidcop.Start(t)
	var skew atomic.Int64
	v, err := oidcauth.New(Config(p), nil, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tok := p.Token(t, "ci1")
	got, err := v.Verify(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if got.By != fleet.ByOIDC || got.Subject != "ci1" || got.Tenant != "acme" || !got.Has(fleet.Developer) || got.Issuer != p.Issuer {
		t.Errorf("principal %+v", got)
	}
	got, err = v.Verify(ctx, p.IDToken(t, "aud3"))
	if err != nil || got.Subject != "aud3" || got.Tenant != "other" || !got.Has(fleet.Auditor) {
		t.Errorf("ID token: %+v, %v", got, err)
	}
	parts := strings.Split(tok, ".")
	var claims map[string]any
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(b, &claims)
	claims["sub"] = "dev2"
	forgedPayload, _ := json.Marshal(claims)
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString(forgedPayload) + "." + parts[2]
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	for _, c := range []struct {
		name string
		tok  string
		want error
	}{
		{"wrong issuer", other.Token(t, "ci1"), oidcauth.ErrIssuer},
		{"wrong audience", p.Token(t, "ci1", "elsewhere"), oidcauth.ErrAudience},
		{"alg none", none, oidcauth.ErrAlgorithm},
		{"forged signature", forged, oidcauth.ErrSignature},
		{"not a JWT", "a.b", oidcauth.ErrMalformed},
	} {
		if _, err := v.Verify(ctx, c.tok); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// Expired: the same token, verified again two hours on.
	skew.Store(int64(2 * time.Hour))
	if _, err := v.Verify(ctx, tok); !errors.Is(err, oidcauth.ErrExpired) {
		t.Errorf("expired: %v, want ErrExpired", err)
	}
}

// TestProviderDown: an issuer that does not answer is OIDC_PROVIDER_DOWN,
// and for a while after, its tokens are refused at once without asking.
func TestProviderDown(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Error(w, "down", 503)
	}))
	defer srv.Close()
	v, err := oidcauth.New(oidcauth.Config{Issuers: []oidcauth.Issuer{{Issuer: srv.URL, Audiences: []string{"a"}, Tenant: "acme", Roles: []fleet.Role{fleet.Developer}}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"` + srv.URL + `"}`))
	tok := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256"}`)) + "." + payload + ".c2ln"
	for i := 0; i < 3; i++ {
		if _, err := v.Verify(context.Background(), tok); !errors.Is(err, oidcauth.ErrProvider) {
			t.Errorf("try %d: %v, want ErrProvider", i, err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the issuer was asked %d times, want 1", n)
	}
}
