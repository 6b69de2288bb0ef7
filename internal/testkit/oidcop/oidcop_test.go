package oidcop_test

import (
	"context"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/logbook-project/logbook/internal/testkit/oidcop"
)

// TestTokens checks what the provider issues with go-oidc, the library
// the server verifies with: the access token of the client-credentials
// grant and the ID token of the code flow, both with the user's claims,
// and neither accepted by a second provider (another issuer and keys).
func TestTokens(t *testing.T) {
	p := oidcop.Start(t)
	other := oidcop.Start(t)
	ctx := context.Background()
	prov, err := oidc.NewProvider(ctx, p.Issuer)
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Sub    string   `json:"sub"`
		Tenant string   `json:"tenant"`
		Roles  []string `json:"roles"`
		Groups []string `json:"groups"`
	}
	access := p.Token(t, "ci1")
	tok, err := prov.Verifier(&oidc.Config{ClientID: oidcop.Audience}).Verify(ctx, access)
	if err != nil {
		t.Fatalf("access token: %v", err)
	}
	if err := tok.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	if claims.Sub != "ci1" || claims.Tenant != "acme" || len(claims.Roles) != 1 || claims.Roles[0] != "developer" || claims.Groups[0] != "acme/developer" {
		t.Errorf("access token claims: %+v", claims)
	}
	if _, err := prov.Verifier(&oidc.Config{ClientID: oidcop.Audience}).Verify(ctx, p.Token(t, "dev1", "elsewhere")); err == nil {
		t.Error("a token for another audience verified")
	}
	id := p.IDToken(t, "aud3")
	tok, err = prov.Verifier(&oidc.Config{ClientID: oidcop.ConsoleClient}).Verify(ctx, id)
	if err != nil {
		t.Fatalf("ID token: %v", err)
	}
	claims.Roles = nil
	if err := tok.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	if claims.Sub != "aud3" || claims.Tenant != "other" || len(claims.Roles) != 1 || claims.Roles[0] != "auditor" {
		t.Errorf("ID token claims: %+v", claims)
	}
	if other.Issuer == p.Issuer {
		t.Fatal("two providers, one issuer")
	}
	oprov, err := oidc.NewProvider(ctx, other.Issuer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oprov.Verifier(&oidc.Config{ClientID: oidcop.Audience}).Verify(ctx, access); err == nil {
		t.Error("another issuer's verifier accepted the token")
	}
}
