// Package oidcauth checks the OIDC bearer tokens a fleet's people and CI
// jobs send (a GitHub Actions or GitLab CI job's ID token, a person's
// token from the company's provider) against each configured issuer's
// published keys, with go-oidc (no JWT check of our own), and maps the
// token's claims to a fleet.Principal: subject, tenant, roles. Each
// refusal is one of the Err* below; nothing it refuses is recorded.
package oidcauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/logbook-project/logbook/internal/fleet"
)

// Issuer is one trusted issuer and how its tokens map to principals
// (docs/fleet.md, "OIDC").
type Issuer struct {
	// Issuer is the exact "iss" of its tokens; its discovery document is
	// at Issuer + "/.well-known/openid-configuration".
	Issuer string `json:"issuer"`
	// Audiences: a token is taken when its "aud" names one of them.
	Audiences []string `json:"audiences"`
	// SubjectClaim names the developer (default "sub"; for GitHub,
	// "sub" is repo:OWNER/REPO:ref:…, or use "actor").
	SubjectClaim string `json:"subjectClaim,omitempty"`
	// Tenant is every token's tenant; else TenantClaim names the claim
	// that holds it.
	Tenant      string `json:"tenant,omitempty"`
	TenantClaim string `json:"tenantClaim,omitempty"`
	// Roles are every token's roles; else RolesClaim names the claim (a
	// string or an array of strings) that holds them.
	Roles      []fleet.Role `json:"roles,omitempty"`
	RolesClaim string       `json:"rolesClaim,omitempty"`
	// Require are claims that must have exactly these string values
	// (GitHub: {"repository_owner": "acme"}): a token of another
	// organization on the same issuer is refused.
	Require map[string]string `json:"require,omitempty"`
}

// Config is the file logbook-server --oidc-config reads.
type Config struct {
	Issuers []Issuer `json:"issuers"`
}

// Refusals: a token is refused with exactly one of these.
var (
	ErrMalformed = errors.New("not a JWT")
	ErrAlgorithm = errors.New("signing algorithm refused (alg none, or not an asymmetric one)")
	ErrIssuer    = errors.New("issuer not trusted by this server")
	ErrAudience  = errors.New("token is for another audience")
	ErrExpired   = errors.New("token expired")
	ErrSignature = errors.New("signature does not verify with the issuer's published keys")
	ErrClaims    = errors.New("token lacks a claim the configuration needs")
	ErrInvalid   = errors.New("token refused by the issuer's verifier")
	ErrProvider  = errors.New("issuer's discovery or keys unreachable")
)

// Algs are the signing algorithms taken: asymmetric only (an HMAC key
// would be a secret shared with every verifier).
var Algs = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.ES512, oidc.PS256, oidc.PS384, oidc.PS512, oidc.EdDSA}

// Verifier checks tokens. It is safe for concurrent use.
type Verifier struct {
	issuers map[string]*issuer
	now     func() time.Time
	client  *http.Client
	mu      sync.Mutex
	seen    map[[32]byte]seen // tokens verified, until they expire
}

type seen struct {
	p   fleet.Principal
	exp time.Time
}

type issuer struct {
	cfg Issuer
	mu  sync.Mutex
	v   *oidc.IDTokenVerifier // made on first use: discovery needs the issuer up
	// failed is when discovery last failed: for retryAfter, tokens of
	// the issuer are refused at once rather than each waiting on it.
	failed  time.Time
	lastErr error
}

// retryAfter is how long after a failed discovery the next is tried.
const retryAfter = 30 * time.Second

// New checks cfg; discovery waits for each issuer's first token, so a
// provider down at the server's start does not stop it. client nil: a
// client with a 10 s timeout; now nil: time.Now.
func New(cfg Config, client *http.Client, now func() time.Time) (*Verifier, error) {
	if now == nil {
		now = time.Now
	}
	if client == nil {
		// Bounded: an issuer that hangs must not hold the requests that
		// wait for its keys (a refusal, OIDC_PROVIDER_DOWN, instead).
		client = &http.Client{Timeout: 10 * time.Second}
	}
	v := &Verifier{issuers: map[string]*issuer{}, now: now, client: client, seen: map[[32]byte]seen{}}
	for _, is := range cfg.Issuers {
		if is.Issuer == "" || len(is.Audiences) == 0 {
			return nil, fmt.Errorf("oidc issuer %q: needs issuer and audiences", is.Issuer)
		}
		if (is.Tenant == "") == (is.TenantClaim == "") {
			return nil, fmt.Errorf("oidc issuer %s: give tenant or tenantClaim, one of them", is.Issuer)
		}
		if is.Tenant != "" && !fleet.ValidTenant(is.Tenant) {
			return nil, fmt.Errorf("oidc issuer %s: tenant %q: %v", is.Issuer, is.Tenant, fleet.ErrName)
		}
		if (len(is.Roles) == 0) == (is.RolesClaim == "") {
			return nil, fmt.Errorf("oidc issuer %s: give roles or rolesClaim, one of them", is.Issuer)
		}
		for _, r := range is.Roles {
			if !fleet.ValidRole(r) {
				return nil, fmt.Errorf("oidc issuer %s: role %q", is.Issuer, r)
			}
		}
		if is.SubjectClaim == "" {
			is.SubjectClaim = "sub"
		}
		if _, dup := v.issuers[is.Issuer]; dup {
			return nil, fmt.Errorf("oidc issuer %s: named twice", is.Issuer)
		}
		v.issuers[is.Issuer] = &issuer{cfg: is}
	}
	return v, nil
}

// Looks reports whether s has a JWT's shape (three dot-separated parts):
// the server sends such bearer tokens here.
func Looks(s string) bool { return strings.Count(s, ".") == 2 }

// Verify checks raw and returns its principal (fleet.ByOIDC).
func (v *Verifier) Verify(ctx context.Context, raw string) (fleet.Principal, error) {
	key := sha256.Sum256([]byte(raw))
	now := v.now()
	v.mu.Lock()
	s, ok := v.seen[key]
	v.mu.Unlock()
	if ok && now.Before(s.exp) {
		return s.p, nil
	}
	// The header and the issuer are read only to name a refusal and pick
	// the issuer's verifier: go-oidc then checks everything.
	hdr, payload, err := split(raw)
	if err != nil {
		return fleet.Principal{}, err
	}
	if !slices.Contains(Algs, hdr.Alg) {
		return fleet.Principal{}, fmt.Errorf("%w: %q", ErrAlgorithm, hdr.Alg)
	}
	is := v.issuers[payload.Iss]
	if is == nil {
		return fleet.Principal{}, fmt.Errorf("%w: %q", ErrIssuer, clip(payload.Iss))
	}
	iv, err := is.verifier(ctx, v.client, v.now)
	if err != nil {
		return fleet.Principal{}, err
	}
	tok, err := iv.Verify(ctx, raw)
	if err != nil {
		var exp *oidc.TokenExpiredError
		switch {
		case errors.As(err, &exp):
			return fleet.Principal{}, fmt.Errorf("%w at %s", ErrExpired, exp.Expiry.UTC().Format(time.RFC3339))
		case strings.Contains(err.Error(), "signature"):
			return fleet.Principal{}, fmt.Errorf("%w: %v", ErrSignature, err)
		}
		return fleet.Principal{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if !slices.ContainsFunc(tok.Audience, func(a string) bool { return slices.Contains(is.cfg.Audiences, a) }) {
		return fleet.Principal{}, fmt.Errorf("%w: %q", ErrAudience, clip(strings.Join(tok.Audience, " ")))
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return fleet.Principal{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	p, err := is.principal(claims)
	if err != nil {
		return fleet.Principal{}, err
	}
	v.mu.Lock()
	if len(v.seen) > 10000 {
		clear(v.seen) // bounded: the next requests verify again
	}
	v.seen[key] = seen{p: p, exp: tok.Expiry}
	v.mu.Unlock()
	return p, nil
}

func (is *issuer) verifier(ctx context.Context, client *http.Client, now func() time.Time) (*oidc.IDTokenVerifier, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.v != nil {
		return is.v, nil
	}
	if !is.failed.IsZero() && now().Sub(is.failed) < retryAfter {
		return nil, is.lastErr
	}
	// The key set outlives the request: its context is not the request's.
	pctx := oidc.ClientContext(context.WithoutCancel(ctx), client)
	prov, err := oidc.NewProvider(pctx, is.cfg.Issuer)
	if err != nil {
		is.failed, is.lastErr = now(), fmt.Errorf("%w: %v", ErrProvider, err)
		return nil, is.lastErr
	}
	is.v = prov.Verifier(&oidc.Config{SkipClientIDCheck: true, SupportedSigningAlgs: Algs, Now: now})
	return is.v, nil
}

func (is *issuer) principal(claims map[string]any) (fleet.Principal, error) {
	c := is.cfg
	for k, want := range c.Require {
		if got, _ := claims[k].(string); got != want {
			return fleet.Principal{}, fmt.Errorf("%w: %s must be %q", ErrClaims, k, want)
		}
	}
	p := fleet.Principal{By: fleet.ByOIDC, Issuer: c.Issuer, Tenant: c.Tenant, Roles: c.Roles}
	p.Subject, _ = claims[c.SubjectClaim].(string)
	if !plain(p.Subject) {
		return fleet.Principal{}, fmt.Errorf("%w: %s", ErrClaims, c.SubjectClaim)
	}
	if c.TenantClaim != "" {
		p.Tenant, _ = claims[c.TenantClaim].(string)
		if !fleet.ValidTenant(p.Tenant) {
			return fleet.Principal{}, fmt.Errorf("%w: %s", ErrClaims, c.TenantClaim)
		}
	}
	if c.RolesClaim != "" {
		p.Roles = nil
		switch r := claims[c.RolesClaim].(type) {
		case string:
			p.Roles = append(p.Roles, fleet.Role(r))
		case []any:
			for _, x := range r {
				if s, ok := x.(string); ok {
					p.Roles = append(p.Roles, fleet.Role(s))
				}
			}
		}
		// Roles this server does not know are dropped; none left is a refusal.
		p.Roles = slices.DeleteFunc(p.Roles, func(r fleet.Role) bool { return !fleet.ValidRole(r) })
		if len(p.Roles) == 0 {
			return fleet.Principal{}, fmt.Errorf("%w: %s names no role of %v", ErrClaims, c.RolesClaim, fleet.Roles)
		}
	}
	return p, nil
}

// plain: a subject of 1-191 bytes of UTF-8 that prints (fleet.Prints:
// letters, marks, numbers, punctuation, symbols, the space): it is written into every
// step's actor and printed by the verifier, where a C1 control (U+009B
// is a terminal's CSI), a bidi override or a line separator would hide
// or move text; the index keeps a developer in 191 bytes, and left a
// longer one's sessions out of search and coverage.
func plain(s string) bool {
	return s != "" && len(s) <= 191 && fleet.Printable(s)
}

type header struct {
	Alg string `json:"alg"`
}

type payload struct {
	Iss string `json:"iss"`
}

func split(raw string) (header, payload, error) {
	var h header
	var p payload
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return h, p, ErrMalformed
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	pb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	if err1 != nil || err2 != nil || json.Unmarshal(hb, &h) != nil || json.Unmarshal(pb, &p) != nil {
		return h, p, ErrMalformed
	}
	return h, p, nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
