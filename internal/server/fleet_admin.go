package server

// The fleet's enrollment route and its admins' routes (docs/fleet.md).

import (
	"crypto/rand"
	"net/http"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
)

// fleetRoutes adds the enrollment route and the admin's routes.
//
//	POST /v1/enroll                         {"code": CODE} → the credential (no bearer: the code is the proof)
//	POST /v1/admin/enroll                   {"tenant","developer","roles","ttl"} → {"code"} (admin of the tenant)
//	GET  /v1/admin/credentials?tenant=T     the tenant's credentials (admin)
//	POST /v1/admin/credentials/{cred}/revoke   (admin of its tenant)
func (s *Server) fleetRoutes(mux *http.ServeMux) {
	if s.cfg.Fleet == nil {
		return
	}
	mux.HandleFunc("/v1/enroll", s.method("POST", s.enroll))
	mux.HandleFunc("/v1/admin/enroll", s.fleetAuth(s.method("POST", s.adminEnroll)))
	mux.HandleFunc("/v1/admin/credentials", s.fleetAuth(s.method("GET", s.adminCredentials)))
	mux.HandleFunc("/v1/admin/credentials/{cred}/revoke", s.fleetAuth(s.method("POST", s.adminRevoke)))
}

func (s *Server) enroll(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
	}
	if err := decodeJSON(w, r, 4096, &in); err != nil {
		s.fail(w, r, errBadEnroll, "send {\"code\": CODE}")
		return
	}
	tok, c, err := s.cfg.Fleet.Store.Redeem(in.Code, s.cfg.Now(), rand.Reader)
	if err != nil {
		code := fleetCode(err)
		if code == "" {
			code = errInternal
		}
		s.cfg.Log.Warn("enrollment refused", "error", err.Error(), "remote", r.RemoteAddr)
		s.fail(w, r, code, err.Error())
		return
	}
	s.cfg.Log.Info("enrolled", "tenant", c.Tenant, "subject", c.Subject, "credential", c.ID, "enrollment", c.Enrollment)
	writeJSON(w, http.StatusOK, map[string]any{"credential": tok, "id": c.ID, "tenant": c.Tenant, "subject": c.Subject, "roles": c.Roles})
}

func (s *Server) manage(w http.ResponseWriter, r *http.Request, tenant string) (fleet.Principal, bool) {
	p, _ := PrincipalOf(r)
	if err := fleet.Authorize(p, fleet.Manage, fleet.Owner{Tenant: tenant}); err != nil {
		s.denied403(w, r, p, fleet.Manage, "-", fleet.Owner{Tenant: tenant}, err)
		return p, false
	}
	return p, true
}

func (s *Server) adminEnroll(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Tenant    string       `json:"tenant"`
		Developer string       `json:"developer"`
		Roles     []fleet.Role `json:"roles"`
		TTL       string       `json:"ttl"`
	}
	if err := decodeJSON(w, r, 4096, &in); err != nil {
		s.fail(w, r, errBadEnroll, "send {\"tenant\": T, \"developer\": NAME, \"ttl\": \"24h\"}")
		return
	}
	if _, ok := s.manage(w, r, in.Tenant); !ok {
		return
	}
	ttl := 24 * time.Hour
	if in.TTL != "" {
		d, err := time.ParseDuration(in.TTL)
		if err != nil {
			s.fail(w, r, errBadEnroll, "ttl: "+err.Error())
			return
		}
		ttl = d
	}
	code, err := s.cfg.Fleet.Store.Enroll(in.Tenant, in.Developer, in.Roles, ttl, s.cfg.Now(), rand.Reader)
	if err != nil {
		s.fail(w, r, errBadEnroll, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"code": code, "expires": s.cfg.Now().Add(ttl).UTC().Format(time.RFC3339)})
}

func (s *Server) adminCredentials(w http.ResponseWriter, r *http.Request) {
	tenant := r.URL.Query().Get("tenant")
	if _, ok := s.manage(w, r, tenant); !ok {
		return
	}
	all, err := s.cfg.Fleet.Store.List()
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	out := []fleet.Credential{}
	for _, c := range all {
		if c.Tenant == tenant {
			out = append(out, c)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) adminRevoke(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("cred")
	all, err := s.cfg.Fleet.Store.List()
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	// The tenants of the credentials Revoke would rename (the live ones
	// the prefix names), each of which the admin must manage; a revoked
	// one of the admin's tenant sharing the prefix says nothing of a live
	// one of another tenant. None live: the revoked ones' tenants, so
	// that their admin hears CREDENTIAL_REVOKED.
	var live, revoked []string
	for _, c := range all {
		if len(id) >= 8 && strings.HasPrefix(c.ID, id) {
			if c.Revoked {
				revoked = append(revoked, c.Tenant)
			} else {
				live = append(live, c.Tenant)
			}
		}
	}
	tenants := live
	if len(tenants) == 0 {
		tenants = revoked
	}
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	for _, tenant := range tenants {
		if _, ok := s.manage(w, r, tenant); !ok {
			return
		}
	}
	c, err := s.cfg.Fleet.Store.Revoke(id)
	if err != nil {
		code := fleetCode(err)
		if code == "" {
			code = errBadEnroll
		}
		s.fail(w, r, code, err.Error())
		return
	}
	s.cfg.Log.Info("credential revoked", "credential", c.ID, "tenant", c.Tenant, "subject", c.Subject)
	writeJSON(w, http.StatusOK, c)
}
