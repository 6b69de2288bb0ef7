package oidcauth_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
)

// down is an issuer that never answers (no network in a fuzz run).
type down struct{}

func (down) RoundTrip(*http.Request) (*http.Response, error) { return nil, errors.New("no network") }

// FuzzVerify: whatever bearer a client sends, the front of Verify (the
// split, the alg, the issuer) answers with one of the package's typed
// refusals, each a named code on the server, and never a principal.
func FuzzVerify(f *testing.F) {
	b64 := base64.RawURLEncoding.EncodeToString
	const iss = "https://issuer.invalid"
	for _, s := range []string{
		"", ".", "..", "a.b.c", "lbk_x.y.z",
		b64([]byte(`{"alg":"none"}`)) + "." + b64([]byte(`{"iss":"`+iss+`"}`)) + ".",
		b64([]byte(`{"alg":"HS256"}`)) + "." + b64([]byte(`{"iss":"`+iss+`"}`)) + ".sig",
		b64([]byte(`{"alg":"RS256","kid":7}`)) + "." + b64([]byte(`{"iss":"`+iss+`"}`)) + ".sig",
		b64([]byte(`{"alg":"RS256"}`)) + "." + b64([]byte(`{"iss":["`+iss+`"]}`)) + ".sig",
		b64([]byte(`{"alg":"RS256"}`)) + "." + b64([]byte(`{"iss":"https://other.invalid"}`)) + ".sig",
		b64([]byte(`{"alg":"EdDSA","alg":"none"}`)) + "." + b64([]byte(`{"iss":"`+iss+`","iss":"x"}`)) + ".sig",
		b64([]byte(`{"alg":"RS256"}`)) + "." + b64([]byte(`{"iss":"`+iss+`","sub":{"a":1},"tenant":"a/b","roles":7}`)) + ".c2ln",
	} {
		f.Add(s)
	}
	v, err := oidcauth.New(oidcauth.Config{Issuers: []oidcauth.Issuer{{Issuer: iss, Audiences: []string{"logbook"},
		TenantClaim: "tenant", RolesClaim: "roles"}}}, &http.Client{Transport: down{}, Timeout: time.Second}, nil)
	if err != nil {
		f.Fatal(err)
	}
	typed := []error{oidcauth.ErrMalformed, oidcauth.ErrAlgorithm, oidcauth.ErrIssuer, oidcauth.ErrAudience, oidcauth.ErrExpired,
		oidcauth.ErrSignature, oidcauth.ErrClaims, oidcauth.ErrInvalid, oidcauth.ErrProvider}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := v.Verify(context.Background(), raw)
		if err == nil {
			t.Fatalf("%q verified as %+v with no issuer reachable", raw, p)
		}
		for _, e := range typed {
			if errors.Is(err, e) {
				return
			}
		}
		t.Fatalf("%q: untyped refusal %v", raw, err)
	})
}
