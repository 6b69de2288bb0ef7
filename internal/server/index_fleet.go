package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// The index's seams (index.go) filled from the fleet (fleet.go) when the
// server has one and the command named no other: an entry's tenant,
// developer and machine are its first attested actor's; coverage's
// enrolled developers are the fleet's live credentials; every index route
// asks fleet.Authorize through the principal the fleet authenticated.

// fleetWho reads a journal line's attested actor (fleet.ActorOf, the
// one reader). The shared token names nobody: the next step is asked.
// The machine is the enrolled credential (one per install) or the OIDC
// issuer.
func fleetWho(step *strictjson.Value) (tenant, developer, machine string, ok bool) {
	a, found, err := fleet.ActorOf(step.Get("data"))
	if !found || err != nil || a.Attested == nil || a.Attested.By == fleet.ByToken || a.Attested.Subject == "" {
		return "", "", "", false
	}
	machine = a.Attested.Credential
	if machine == "" {
		machine = a.Attested.Issuer
	}
	return a.Attested.Tenant, a.Attested.Subject, machine, true
}

// fleetEnrolled lists the developers of tenant holding a credential that
// is not revoked.
func (s *Server) fleetEnrolled(tenant string) ([]string, error) {
	creds, err := s.cfg.Fleet.Store.List()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range creds {
		if c.Tenant == tenant && !c.Revoked && slices.Contains(c.Roles, fleet.Developer) && !slices.Contains(out, c.Subject) {
			out = append(out, c.Subject)
		}
	}
	return out, nil
}

// fleetAuthorize maps the index's actions onto fleet.Authorize's rule: a
// developer searches its own sessions; an auditor searches its tenant's
// and reads coverage; an admin manages retention and holds (and, to do
// so, searches and reads coverage). The shared token keeps what it has
// on a server without a fleet (authorizeStub).
func (s *Server) fleetAuthorize(r *http.Request, action string) (Caller, error) {
	p, ok := PrincipalOf(r)
	if !ok {
		return Caller{}, fmt.Errorf("%w: no authenticated principal", ErrForbidden)
	}
	if p.By == fleet.ByToken {
		return s.authorizeStub(r, action)
	}
	tenant := fleet.Owner{Tenant: p.Tenant}
	admin := fleet.Authorize(p, fleet.Manage, tenant) == nil
	c := Caller{Tenant: p.Tenant, Developer: p.Subject}
	switch {
	case admin:
		c.Role = RoleAdmin
	case action != ActAdmin && p.Has(fleet.Auditor):
		c.Role = RoleAuditor
	case action == ActSearch && p.Has(fleet.Developer):
		c.Role = RoleDeveloper
	default:
		return Caller{}, fmt.Errorf("%w: %s (%s) may not %s", ErrForbidden, p.Subject, p.Tenant, action)
	}
	return c, nil
}

// indexAuth guards the index's routes: with a fleet, any principal it
// authenticates (fleetAuthorize then decides per action); without one,
// the read routes' guard.
func (s *Server) indexAuth(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.Fleet == nil {
		return s.readAuth(h)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.authenticate(w, r, true)
		if !ok {
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	}
}
