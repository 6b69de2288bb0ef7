// Package opserver is the OpenID provider the tests start as a process
// of its own (internal/testkit/oidcop/cmd/oidcop): zitadel/oidc's
// certified op package with its example in-memory storage and login form,
// the people of oidcop.Users, their tenant and roles as claims, and the
// client-credentials grant for each of them (a CI job's token, or a
// person's bearer token without a browser).
package opserver

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"

	"github.com/logbook-project/logbook/internal/testkit/oidcop"
)

// Handler is the provider for issuer: discovery, JWKS (RS256), the
// authorization endpoint (/auth) with its login form (/login/username),
// token, userinfo, introspection and end-session endpoints.
func Handler(issuer string) http.Handler {
	console := globClient{storage.WebClient(oidcop.ConsoleClient, oidcop.ConsoleSecret, "http://127.0.0.1/callback")}
	inner := storage.NewStorageWithClients(users{}, map[string]*storage.Client{})
	s := &store{Storage: inner, console: console}
	return exampleop.SetupServer(issuer, s, nil, false)
}

// users is the example storage's user store over oidcop.Users: a user's
// ID is its name.
type users struct{}

func (users) GetUserByID(id string) *storage.User { return user(id) }

func (users) GetUserByUsername(name string) *storage.User { return user(name) }

func (users) ExampleClientID() string { return "service" }

func user(name string) *storage.User {
	u, ok := oidcop.Lookup(name)
	if !ok {
		return nil
	}
	return &storage.User{
		ID: u.Name, Username: u.Name, Password: oidcop.Password,
		FirstName: u.Name, LastName: u.Tenant,
		Email: u.Name + "@" + u.Tenant + ".example", EmailVerified: true,
		PreferredLanguage: language.English,
	}
}

// store is the example storage with the console's client, each user as
// a client-credentials client, and the tenant and roles claims.
type store struct {
	*storage.Storage
	console op.Client
}

func (s *store) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	if id == oidcop.ConsoleClient {
		return s.console, nil
	}
	if _, ok := oidcop.Lookup(id); ok {
		return ccClient{id: id}, nil
	}
	return s.Storage.GetClientByClientID(ctx, id)
}

func (s *store) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	if id == oidcop.ConsoleClient {
		if secret != oidcop.ConsoleSecret {
			return errors.New("invalid secret")
		}
		return nil
	}
	return s.Storage.AuthorizeClientIDSecret(ctx, id, secret)
}

func (s *store) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	if _, ok := oidcop.Lookup(id); !ok || secret != oidcop.Password {
		return nil, errors.New("wrong client or secret")
	}
	return ccClient{id: id}, nil
}

// ClientCredentialsTokenRequest makes the token's audience the scope
// "aud:X" asks for (oidcop.Audience if none), as zitadel's own
// project-audience scope does.
func (s *store) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	if _, ok := oidcop.Lookup(id); !ok {
		return nil, errors.New("wrong client")
	}
	aud := []string{}
	for _, sc := range scopes {
		if a, ok := strings.CutPrefix(sc, "aud:"); ok {
			aud = append(aud, a)
		}
	}
	if len(aud) == 0 {
		aud = []string{oidcop.Audience}
	}
	return &oidc.JWTTokenRequest{Subject: id, Audience: aud, Scopes: scopes}, nil
}

func (s *store) SetUserinfoFromRequest(ctx context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, info, req, scopes); err != nil {
		return err
	}
	appendClaims(info, req.GetSubject())
	return nil
}

func (s *store) SetUserinfoFromToken(ctx context.Context, info *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := s.Storage.SetUserinfoFromToken(ctx, info, tokenID, subject, origin); err != nil {
		return err
	}
	appendClaims(info, subject)
	return nil
}

func (s *store) GetPrivateClaimsFromScopes(ctx context.Context, subject, clientID string, scopes []string) (map[string]any, error) {
	if u, ok := oidcop.Lookup(subject); ok {
		return u.Claims(), nil
	}
	return s.Storage.GetPrivateClaimsFromScopes(ctx, subject, clientID, scopes)
}

func appendClaims(info *oidc.UserInfo, subject string) {
	u, ok := oidcop.Lookup(subject)
	if !ok {
		return
	}
	for k, v := range u.Claims() {
		info.AppendClaims(k, v)
	}
}

// ccClient is a user as a client of the client-credentials grant: its
// access tokens are JWTs, signed with the provider's RS256 key.
type ccClient struct{ id string }

func (c ccClient) GetID() string                       { return c.id }
func (c ccClient) RedirectURIs() []string              { return nil }
func (c ccClient) PostLogoutRedirectURIs() []string    { return nil }
func (c ccClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c ccClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c ccClient) ResponseTypes() []oidc.ResponseType  { return nil }
func (c ccClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}
func (c ccClient) LoginURL(string) string               { return "" }
func (c ccClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c ccClient) IDTokenLifetime() time.Duration       { return time.Hour }
func (c ccClient) DevMode() bool                        { return true }
func (c ccClient) IsScopeAllowed(string) bool           { return true }
func (c ccClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c ccClient) ClockSkew() time.Duration             { return 0 }
func (c ccClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c ccClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// globClient is the console's client: any redirect URI on 127.0.0.1 or
// localhost, since a test's console listens on a port of the moment.
type globClient struct{ *storage.Client }

func (globClient) RedirectURIGlobs() []string {
	return []string{"http://127.0.0.1:*/**", "http://localhost:*/**"}
}

func (globClient) PostLogoutRedirectURIGlobs() []string {
	return []string{"http://127.0.0.1:*/**", "http://localhost:*/**"}
}
