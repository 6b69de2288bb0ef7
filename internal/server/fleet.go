package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Fleet is a server shared by a fleet (docs/fleet.md): every request
// names its principal (an enrolled credential, an OIDC token, or the
// shared --token), every step the server appends carries its actor, and
// every read route asks fleet.Authorize. Config.Fleet nil: the server's
// one shared token as before, and no actor in the steps.
type Fleet struct {
	Store fleet.Keeper       // credentials and enrollment codes (fleet.Store: DATA/fleet)
	OIDC  *oidcauth.Verifier // nil: no OIDC issuer trusted
	// Owners keeps who started each session; nil: DATA/ID.owner files.
	Owners fleet.Owners
}

// The fleet's refusal codes, each with its status (fleetStatus).
const (
	errForbidden     = "FORBIDDEN"                  // 403: the principal's role or tenant does not allow the route
	errNotYours      = string(format.ActorMismatch) // 403: an event into a session another developer started (the verifier's code for a record that holds one)
	errCredUnknown   = "CREDENTIAL_UNKNOWN"         // 401
	errCredRevoked   = "CREDENTIAL_REVOKED"         // 401
	errCodeUnknown   = "ENROLL_CODE_UNKNOWN"        // 403: never issued (forged, mistyped)
	errCodeUsed      = "ENROLL_CODE_USED"           // 403
	errCodeExpired   = "ENROLL_CODE_EXPIRED"        // 403
	errOIDCIssuer    = "OIDC_ISSUER"                // 401: an issuer this server does not trust
	errOIDCAudience  = "OIDC_AUDIENCE"              // 401
	errOIDCExpired   = "OIDC_EXPIRED"               // 401
	errOIDCAlgorithm = "OIDC_ALGORITHM"             // 401: alg none, or a symmetric one
	errOIDCSignature = "OIDC_SIGNATURE"             // 401: not signed by the issuer's published keys
	errOIDCClaims    = "OIDC_CLAIMS"                // 401: a claim the configuration maps is missing
	errOIDCInvalid   = "OIDC_INVALID"               // 401: malformed, or refused otherwise by go-oidc
	errOIDCProvider  = "OIDC_PROVIDER_DOWN"         // 503: the issuer's discovery or keys unreachable
	errBadEnroll     = "ENROLL_INPUT_INVALID"
)

var fleetStatus = map[string]int{
	errForbidden: 403, errNotYours: 403, errCredUnknown: 401, errCredRevoked: 401,
	errCodeUnknown: 403, errCodeUsed: 403, errCodeExpired: 403,
	errOIDCIssuer: 401, errOIDCAudience: 401, errOIDCExpired: 401, errOIDCAlgorithm: 401,
	errOIDCSignature: 401, errOIDCClaims: 401, errOIDCInvalid: 401, errOIDCProvider: 503,
	errBadEnroll: 400,
}

// The fleet's refusals whose detail is the server's own text (or names
// what the server checked): logged verbatim, so that the log says who
// was refused and why.
func init() {
	for _, c := range []string{errForbidden, errNotYours, errCredUnknown, errCredRevoked, errCodeUnknown, errCodeUsed, errCodeExpired, errOIDCExpired} {
		plainDetail[c] = true
	}
}

// fleetCodes maps the typed errors of fleet and oidcauth 1:1 to codes.
var fleetCodes = []struct {
	err  error
	code string
}{
	{fleet.ErrCredUnknown, errCredUnknown}, {fleet.ErrCredRevoked, errCredRevoked},
	{fleet.ErrCodeUnknown, errCodeUnknown}, {fleet.ErrCodeUsed, errCodeUsed}, {fleet.ErrCodeExpired, errCodeExpired},
	{oidcauth.ErrIssuer, errOIDCIssuer}, {oidcauth.ErrAudience, errOIDCAudience}, {oidcauth.ErrExpired, errOIDCExpired},
	{oidcauth.ErrAlgorithm, errOIDCAlgorithm}, {oidcauth.ErrSignature, errOIDCSignature}, {oidcauth.ErrClaims, errOIDCClaims},
	{oidcauth.ErrMalformed, errOIDCInvalid}, {oidcauth.ErrInvalid, errOIDCInvalid}, {oidcauth.ErrProvider, errOIDCProvider},
}

func fleetCode(err error) string {
	for _, c := range fleetCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return ""
}

// fleetState is what the server keeps for its fleet.
type fleetState struct {
	owners sync.Map // session id → fleet.Owner, as read from or written to DATA/ID.owner
}

type principalKey struct{}

// Authenticated guards a route another package adds to the server's mux
// (the index's search, the console): with a fleet, the request's
// principal is checked and put where PrincipalOf finds it; without one,
// the server's --token is required as on its own routes. The route then
// asks Allow (or fleet.Authorize) per session; a route that lists
// sessions (a search) keeps the rows fleet.Authorize lets p read.
func (s *Server) Authenticated(h http.HandlerFunc) http.HandlerFunc { return s.auth(h) }

// PrincipalOf is the principal a fleet server authenticated for r (for
// the routes other packages add to the mux: the index, the console); ok
// false outside the fleet's auth.
func PrincipalOf(r *http.Request) (fleet.Principal, bool) {
	p, ok := r.Context().Value(principalKey{}).(fleet.Principal)
	return p, ok
}

// authenticate is the principal of r's bearer token: the shared token
// (read: the read token where there is one), an enrolled credential, or
// an OIDC token. On a refusal it has answered.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, read bool) (fleet.Principal, bool) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || got == "" {
		s.fail(w, r, errUnauthorized, "send Authorization: Bearer CREDENTIAL (an enrolled credential, an OIDC token, or the server's token)")
		return fleet.Principal{}, false
	}
	shared := s.cfg.Token
	if read && s.cfg.ReadToken != "" {
		shared = s.cfg.ReadToken
	}
	if shared != "" && equalSecret(got, shared) {
		return fleet.Principal{By: fleet.ByToken}, true
	}
	var p fleet.Principal
	var err error
	switch {
	case strings.HasPrefix(got, fleet.TokenPrefix):
		p, err = s.cfg.Fleet.Store.Lookup(got)
	case s.cfg.Fleet.OIDC != nil && oidcauth.Looks(got):
		p, err = s.cfg.Fleet.OIDC.Verify(r.Context(), got)
	default:
		s.fail(w, r, errUnauthorized, "the bearer token is neither an enrolled credential, an OIDC token of a trusted issuer, nor the server's token")
		return fleet.Principal{}, false
	}
	if err != nil {
		code := fleetCode(err)
		if code == "" {
			code = errInternal
		}
		s.fail(w, r, code, err.Error())
		return fleet.Principal{}, false
	}
	return p, true
}

func equalSecret(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// fleetAuth guards the write routes (hooks, key, verify): any principal;
// the hook route's ownership is checked under the session's lock
// (fleetWire).
func (s *Server) fleetAuth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.authenticate(w, r, false)
		if !ok {
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
}

// fleetRead guards the read routes: a session's route asks
// fleet.Authorize(p, Read, owner); the log's tiles, which name every
// session of every tenant, need the shared token or an auditor.
func (s *Server) fleetRead(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.authenticate(w, r, true)
		if !ok {
			return
		}
		if id := r.PathValue("id"); id != "" {
			if !s.Allow(w, r, p, fleet.Read, id) {
				return
			}
		} else if p.By != fleet.ByToken && !p.Has(fleet.Auditor) {
			s.fail(w, r, errForbidden, "the log names every session of every tenant: an auditor's or the server's token reads it")
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
}

// Allow asks fleet.Authorize whether p may do a to session id, and
// answers FORBIDDEN (ACTOR_MISMATCH for another developer's session
// on a write) when not: the routes other packages add (the index, the
// console) call it too. It logs every refusal with who asked.
func (s *Server) Allow(w http.ResponseWriter, r *http.Request, p fleet.Principal, a fleet.Action, id string) bool {
	if err := journalfile.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return false
	}
	o, err := s.SessionOwner(id)
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return false
	}
	if err := fleet.Authorize(p, a, o); err != nil {
		s.denied403(w, r, p, a, id, o, err)
		return false
	}
	return true
}

func (s *Server) denied403(w http.ResponseWriter, r *http.Request, p fleet.Principal, a fleet.Action, id string, o fleet.Owner, err error) {
	// A developer's event into a session another developer (of this
	// tenant or another) started: the verifier's ACTOR_MISMATCH.
	code := errForbidden
	if a == fleet.Write && (errors.Is(err, fleet.ErrNotOwner) || errors.Is(err, fleet.ErrOtherTenant)) {
		code = errNotYours
	}
	s.cfg.Log.Warn("fleet refusal", "action", string(a), "session", id, "by", p.By, "tenant", p.Tenant,
		"subject", p.Subject, "credential", p.Credential, "issuer", p.Issuer, "ownerTenant", o.Tenant, "owner", o.Subject, "error", err.Error())
	s.fail(w, r, code, err.Error())
}

// ownerSuffix names the file of a session's owner: DATA/ID.owner.
const ownerSuffix = ".owner"

// SessionOwner is who started session id in the fleet: the zero Owner
// for a session nobody in the fleet started, or none at all yet.
func (s *Server) SessionOwner(id string) (fleet.Owner, error) {
	if err := journalfile.ValidSessionID(id); err != nil {
		return fleet.Owner{}, err
	}
	if o, ok := s.fl.owners.Load(id); ok {
		return o.(fleet.Owner), nil
	}
	o, err := s.owners().Owner(id)
	if err != nil {
		return fleet.Owner{}, err
	}
	if o != (fleet.Owner{}) {
		s.fl.owners.Store(strings.Clone(id), o)
	}
	return o, nil
}

func (s *Server) setOwner(id string, o fleet.Owner) error {
	if err := s.owners().Set(id, o); err != nil {
		return err
	}
	s.fl.owners.Store(strings.Clone(id), o)
	return nil
}

func (s *Server) owners() fleet.Owners {
	if s.cfg.Fleet != nil && s.cfg.Fleet.Owners != nil {
		return s.cfg.Fleet.Owners
	}
	return ownerFiles(s.cfg.Dir)
}

// ownerFiles keeps each session's owner in DATA/ID.owner, written with
// internal/durable.
type ownerFiles string

func (d ownerFiles) Owner(id string) (fleet.Owner, error) {
	b, err := os.ReadFile(filepath.Join(string(d), id+ownerSuffix))
	if errors.Is(err, fs.ErrNotExist) {
		return fleet.Owner{}, nil
	}
	if err != nil {
		return fleet.Owner{}, err
	}
	var o fleet.Owner
	if err := json.Unmarshal(b, &o); err != nil {
		return fleet.Owner{}, fmt.Errorf("%s%s: %w", id, ownerSuffix, err)
	}
	return o, nil
}

func (d ownerFiles) Set(id string, o fleet.Owner) error {
	b, _ := json.Marshal(o)
	return durable.WriteFileMode(filepath.Join(string(d), id+ownerSuffix), b, 0o600)
}

// ownership is fleetWire's refusal of an event, with what hook needs to
// answer and log it.
type ownership struct {
	p   fleet.Principal
	o   fleet.Owner
	id  string
	err error
}

func (e *ownership) Error() string { return e.err.Error() }
func (e *ownership) Unwrap() error { return e.err }

// fleetWire makes the hook's append check, under the session's lock,
// that the principal may write the session (its owner, or the first to
// write it, who becomes its owner), and stamp the step with the actor:
// the principal attested, the user the payload or X-Logbook-User claims
// asserted.
func (s *Server) fleetWire(r *http.Request, o *recorder.Options) {
	if s.cfg.Fleet == nil {
		return
	}
	p, _ := PrincipalOf(r)
	user := r.Header.Get("X-Logbook-User")
	o.Actor = func(ev hookevent.Event) strictjson.Member {
		u := user
		if ev.User != "" {
			u = ev.User
		}
		return fleet.Member(p, fleet.AssertedUser(u))
	}
	open := o.Journal
	o.Journal = func(id string) (*journalfile.Journal, func(), error) {
		// Asked first without the lock, so that a refused principal
		// opens (creates) no journal; then again under it.
		if owner, err := s.SessionOwner(id); err == nil { // an invalid id: refused by open
			if err := fleet.Authorize(p, fleet.Write, owner); err != nil {
				return nil, nil, &ownership{p: p, o: owner, id: id, err: err}
			}
		}
		j, done, err := open(id)
		if err != nil {
			return j, done, err
		}
		if err := s.mayWrite(p, id, j); err != nil {
			done()
			return nil, nil, err
		}
		return j, done, nil
	}
}

// mayWrite runs under the session's lock.
func (s *Server) mayWrite(p fleet.Principal, id string, j *journalfile.Journal) error {
	o, err := s.SessionOwner(id)
	if err != nil {
		return err
	}
	if err := fleet.Authorize(p, fleet.Write, o); err != nil {
		return &ownership{p: p, o: o, id: id, err: err}
	}
	if o != (fleet.Owner{}) || p.By == fleet.ByToken {
		return nil
	}
	// No owner: the session is new, and p starts it; one that already
	// has steps was started before the fleet or with the shared token,
	// and nobody takes it over.
	if seq, _, err := j.Tip(); err == nil && seq >= 0 {
		return &ownership{p: p, o: o, id: id, err: fleet.ErrNoOwner}
	}
	return s.setOwner(id, fleet.OwnerOf(p))
}

// fleetRefused answers an event refused by mayWrite (true), logged with
// who tried: the session's owner is not told, nothing is appended.
func (s *Server) fleetRefused(w http.ResponseWriter, r *http.Request, err error) bool {
	var e *ownership
	if !errors.As(err, &e) {
		return false
	}
	s.denied403(w, r, e.p, fleet.Write, e.id, e.o, e.err)
	return true
}
