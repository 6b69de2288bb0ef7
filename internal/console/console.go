// Package console is logbook-server's web console under /ui/
// (docs/console.md): people sign in with their organization's OpenID
// provider (authorization code with PKCE, golang.org/x/oauth2 and
// coreos/go-oidc: no token code of our own), and see what their fleet
// role allows: an approver the held calls of the tenant, with approve
// and deny buttons. The session is the server's (a random id in an
// HttpOnly, SameSite=Strict cookie, Secure under TLS, expiring, gone at
// logout); every POST carries the session's CSRF token; no page can be
// framed, and the Content-Security-Policy allows no inline script.
package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/logbook-project/logbook/internal/approval"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/web"
)

// Backend is what the console asks the server: the held calls of a
// tenant, and an approver's decision on one.
type Backend interface {
	Approvals(tenant string) []approval.Request
	DecideAs(p fleet.Principal, id string, approve bool, inputs []string, reason string) (approval.Request, error)
	// ConsoleRecordFile is a session's sealed record as the server holds
	// it, open, and its size, when p may read it; ConsoleKeys the keys
	// the browser pins.
	ConsoleRecordFile(p fleet.Principal, id string) (*os.File, int64, error)
	ConsoleKeys() []string
	// ConsoleSessions is a page of the index's sessions p may see,
	// filtered by v (GET /v1/sessions's parameters); ConsoleEntry what
	// the index says of one (nil: nothing).
	ConsoleSessions(ctx context.Context, p fleet.Principal, v url.Values) (index.Page, error)
	ConsoleEntry(ctx context.Context, p fleet.Principal, id string) (*index.Session, error)
	// ConsoleExport is the auditor's download of a session: a zip of
	// its bundle, the key to trust, the verification transcript and the
	// policy in force.
	ConsoleExport(ctx context.Context, p fleet.Principal, id string) ([]byte, error)
	// ConsoleExportSearch is the same for each session of a search's
	// page (v: the sessions page's filters).
	ConsoleExportSearch(ctx context.Context, p fleet.Principal, v url.Values) ([]byte, error)
	// ConsoleCoverage is an auditor's view of the tenant's recording,
	// and the policy digests in force per repository.
	ConsoleCoverage(ctx context.Context, p fleet.Principal, days int) (index.Coverage, map[string][]string, error)
}

// Config is the console's: its OpenID client and how a signed-in
// person's token becomes a fleet principal.
type Config struct {
	// Issuer is the OpenID provider's issuer URL; ClientID and
	// ClientSecret the console's client there.
	Issuer, ClientID, ClientSecret string
	// URL is the console's origin as browsers reach it
	// (https://logbook.example.com): the provider redirects to
	// URL/ui/callback, and a POST from another origin is refused.
	URL string
	// Principal maps a verified ID token to the person's tenant and
	// roles: the fleet's OIDC verifier (its issuers' claim mapping), so
	// the console and the API see the same roles.
	Principal func(ctx context.Context, rawIDToken string) (fleet.Principal, error)
	// TTL is how long a sign-in lasts (default 8 h); Now the clock.
	TTL    time.Duration
	Now    func() time.Time
	Client *http.Client // to reach the provider (nil: http.DefaultClient)
	Assets fs.FS        // the console's style sheet (web.Files)
}

// Console serves /ui/.
type Console struct {
	cfg    Config
	files  *web.Cached // cfg.Assets, as served
	secure bool        // URL is https: cookies are Secure
	origin string

	mu       sync.Mutex
	provider *oidc.Provider // discovered on first sign-in
	sessions map[[32]byte]*session
	logins   map[[32]byte]*login
}

// session is one signed-in person.
type session struct {
	p       fleet.Principal
	csrf    string
	expires time.Time
}

// login is a sign-in under way: what the callback must match.
type login struct {
	state, nonce, verifier string
	expires                time.Time
}

const (
	sessionCookie = "logbook_console"
	loginCookie   = "logbook_console_login"
	loginTTL      = 10 * time.Minute
)

// New checks cfg.
func New(cfg Config) (*Console, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.URL == "" || cfg.Principal == nil {
		return nil, errors.New("console: needs the issuer, the client id, the console's URL and the fleet's OIDC mapping")
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("console URL %q: want https://HOST[:PORT] (http only on a loopback address)", cfg.URL)
	}
	if cfg.TTL == 0 {
		cfg.TTL = 8 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	return &Console{cfg: cfg, files: web.NewCached(cfg.Assets), secure: u.Scheme == "https", origin: u.Scheme + "://" + u.Host,
		sessions: map[[32]byte]*session{}, logins: map[[32]byte]*login{}}, nil
}

// Handler is the console's routes, to be mounted at /ui/.
func (c *Console) Handler(b Backend) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ui/{$}", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.home(w, s) }))
	mux.HandleFunc("GET /ui/login", c.login)
	mux.HandleFunc("GET /ui/callback", c.callback)
	mux.HandleFunc("POST /ui/logout", c.signedIn(c.logout))
	mux.HandleFunc("GET /ui/approvals", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.approvals(w, r, s, b) }))
	mux.HandleFunc("POST /ui/approvals/{id}", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.decide(w, r, s, b) }))
	mux.HandleFunc("GET /ui/sessions", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.sessionsPage(w, r, s, b) }))
	mux.HandleFunc("GET /ui/coverage", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.coverage(w, r, s, b) }))
	mux.HandleFunc("GET /ui/commits", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.commits(w, r, s, b) }))
	mux.HandleFunc("POST /ui/commits", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.commits(w, r, s, b) }))
	mux.HandleFunc("GET /ui/run", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) {
		http.Redirect(w, r, "/ui/run/"+url.PathEscape(r.URL.Query().Get("session")), http.StatusSeeOther)
	}))
	mux.HandleFunc("GET /ui/run/{id}", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.run(w, r, s, b) }))
	mux.HandleFunc("GET /ui/record/{id}", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.record(w, r, s, b) }))
	mux.HandleFunc("GET /ui/export", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.export(w, r, s, b) }))
	mux.HandleFunc("GET /ui/export/{id}", c.signedIn(func(w http.ResponseWriter, r *http.Request, s *session) { c.export(w, r, s, b) }))
	mux.HandleFunc("GET /ui/console.css", c.asset)
	mux.HandleFunc("GET /ui/run.js", c.asset)
	return headers(mux)
}

// headers are on every answer of the console: no framing, no inline
// script, no sniffing, nothing cached (but the console's own script and
// style, which asset serves to be kept and asked again), no referrer.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin") // no-referrer would make a form's Origin "null"
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

func (c *Console) asset(w http.ResponseWriter, r *http.Request) {
	name := "console/" + strings.TrimPrefix(r.URL.Path, "/ui/")
	if c.cfg.Assets == nil {
		http.NotFound(w, r)
		return
	}
	if st, err := fs.Stat(c.cfg.Assets, name); err != nil || st.IsDir() {
		http.NotFound(w, r)
		return
	}
	c.files.Serve(w, r, name)
}

// random is 32 random bytes, base64url: a cookie's, a state's, a token's.
func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

func key(v string) [32]byte { return sha256.Sum256([]byte(v)) }

// signedIn passes the request's session on, or sends the browser to sign
// in (a page) or refuses (a POST); a POST must carry the session's CSRF
// token and come from the console's own origin.
func (c *Console) signedIn(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := c.session(r)
		if s == nil {
			if r.Method != "GET" {
				c.refuse(w, http.StatusUnauthorized, "You are not signed in (or your sign-in expired).")
				return
			}
			http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
			return
		}
		if r.Method == "POST" {
			if o := r.Header.Get("Origin"); o != "" && o != c.origin {
				c.refuse(w, http.StatusForbidden, "This request came from another site.")
				return
			}
			got := r.PostFormValue("csrf")
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 {
				c.refuse(w, http.StatusForbidden, "This form is stale or was not sent by the console (CSRF token missing or wrong). Reload the page and try again.")
				return
			}
		}
		h(w, r, s)
	}
}

// session is the request's signed-in session: nil when its cookie is
// missing, unknown (forged, or from before a logout) or expired.
func (c *Console) session(r *http.Request) *session {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || len(ck.Value) != 43 {
		return nil
	}
	k := key(ck.Value)
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sessions[k]
	if s == nil {
		return nil
	}
	if !c.cfg.Now().Before(s.expires) {
		delete(c.sessions, k)
		return nil
	}
	return s
}

func (c *Console) cookie(name, value string, maxAge int, strict bool) *http.Cookie {
	ss := http.SameSiteStrictMode
	if !strict {
		// The provider's redirect back is a navigation from its site:
		// the sign-in's own cookie must go with it.
		ss = http.SameSiteLaxMode
	}
	return &http.Cookie{Name: name, Value: value, Path: "/ui/", MaxAge: maxAge, HttpOnly: true, Secure: c.secure, SameSite: ss}
}

// oauth is the console's OAuth 2 client at the provider, discovered once.
func (c *Console) oauth(ctx context.Context) (*oauth2.Config, *oidc.Provider, error) {
	c.mu.Lock()
	p := c.provider
	c.mu.Unlock()
	if p == nil {
		var err error
		p, err = oidc.NewProvider(oidc.ClientContext(ctx, c.cfg.Client), c.cfg.Issuer)
		if err != nil {
			return nil, nil, err
		}
		c.mu.Lock()
		c.provider = p
		c.mu.Unlock()
	}
	return &oauth2.Config{ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: c.origin + "/ui/callback", Scopes: []string{oidc.ScopeOpenID, "profile", "email"}}, p, nil
}

// login starts the authorization code flow with PKCE.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	oc, _, err := c.oauth(r.Context())
	if err != nil {
		c.refuse(w, http.StatusBadGateway, "The sign-in provider cannot be reached: "+err.Error())
		return
	}
	l := &login{state: random(), nonce: random(), verifier: oauth2.GenerateVerifier(), expires: c.cfg.Now().Add(loginTTL)}
	id := random()
	c.mu.Lock()
	c.sweep()
	c.logins[key(id)] = l
	c.mu.Unlock()
	http.SetCookie(w, c.cookie(loginCookie, id, int(loginTTL/time.Second), false))
	http.Redirect(w, r, oc.AuthCodeURL(l.state, oidc.Nonce(l.nonce), oauth2.S256ChallengeOption(l.verifier)), http.StatusSeeOther)
}

// sweep forgets expired sessions and sign-ins; c.mu is held.
func (c *Console) sweep() {
	now := c.cfg.Now()
	for k, s := range c.sessions {
		if !now.Before(s.expires) {
			delete(c.sessions, k)
		}
	}
	for k, l := range c.logins {
		if !now.Before(l.expires) {
			delete(c.logins, k)
		}
	}
}

// callback ends the flow: the state matched to this browser's sign-in,
// the code traded with the PKCE verifier, the ID token verified (issuer,
// audience, signature, expiry, nonce) and mapped to a fleet principal.
func (c *Console) callback(w http.ResponseWriter, r *http.Request) {
	ck, err := r.Cookie(loginCookie)
	var l *login
	if err == nil {
		c.mu.Lock()
		l = c.logins[key(ck.Value)]
		delete(c.logins, key(ck.Value)) // used once
		c.mu.Unlock()
	}
	http.SetCookie(w, c.cookie(loginCookie, "", -1, false))
	q := r.URL.Query()
	if l == nil || !c.cfg.Now().Before(l.expires) || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(l.state)) != 1 {
		c.refuse(w, http.StatusBadRequest, "This sign-in was not started here, or took too long. Sign in again.")
		return
	}
	if e := q.Get("error"); e != "" {
		c.refuse(w, http.StatusUnauthorized, "The provider refused the sign-in: "+e)
		return
	}
	oc, p, err := c.oauth(r.Context())
	if err != nil {
		c.refuse(w, http.StatusBadGateway, "The sign-in provider cannot be reached: "+err.Error())
		return
	}
	ctx := oidc.ClientContext(r.Context(), c.cfg.Client)
	tok, err := oc.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(l.verifier))
	if err != nil {
		c.refuse(w, http.StatusUnauthorized, "The provider did not accept the sign-in code.")
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := p.Verifier(&oidc.Config{ClientID: c.cfg.ClientID, Now: c.cfg.Now}).Verify(ctx, raw)
	if err != nil || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(l.nonce)) != 1 {
		c.refuse(w, http.StatusUnauthorized, "The provider's ID token does not verify.")
		return
	}
	pr, err := c.cfg.Principal(ctx, raw)
	if err != nil || pr.Subject == "" {
		c.refuse(w, http.StatusForbidden, "Your identity is not one of this fleet's people.")
		return
	}
	id := random()
	c.mu.Lock()
	c.sessions[key(id)] = &session{p: pr, csrf: random(), expires: c.cfg.Now().Add(c.cfg.TTL)}
	c.mu.Unlock()
	http.SetCookie(w, c.cookie(sessionCookie, id, int(c.cfg.TTL/time.Second), true))
	// A page of our own, not a redirect: the next navigation starts on
	// this site, so the SameSite=Strict cookie goes with it.
	render(w, http.StatusOK, signedInPage, map[string]any{"Who": pr.Subject})
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request, s *session) {
	ck, _ := r.Cookie(sessionCookie)
	c.mu.Lock()
	delete(c.sessions, key(ck.Value))
	c.mu.Unlock()
	http.SetCookie(w, c.cookie(sessionCookie, "", -1, true))
	render(w, http.StatusOK, signedOutPage, nil)
}

func (c *Console) refuse(w http.ResponseWriter, status int, msg string) {
	render(w, status, refusedPage, map[string]any{"Status": status, "Msg": msg})
}

func (c *Console) home(w http.ResponseWriter, s *session) {
	render(w, http.StatusOK, homePage, c.page(s, nil))
}

// page is what every signed-in page's layout needs.
func (c *Console) page(s *session, more map[string]any) map[string]any {
	roles := make([]string, len(s.p.Roles))
	for i, r := range s.p.Roles {
		roles[i] = string(r)
	}
	m := map[string]any{"Who": s.p.Subject, "Tenant": s.p.Tenant, "Roles": strings.Join(roles, ", "),
		"CSRF": s.csrf, "Approver": s.p.Has(fleet.Approver), "Auditor": s.p.Has(fleet.Auditor), "Reader": s.p.Has(fleet.Auditor) || s.p.Has(fleet.Developer)}
	for k, v := range more {
		m[k] = v
	}
	return m
}

func (c *Console) approvals(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	if !s.p.Has(fleet.Approver) {
		c.refuse(w, http.StatusForbidden, "The approvals queue is for approvers; your roles: "+c.page(s, nil)["Roles"].(string)+".")
		return
	}
	type row struct {
		approval.Request
		Left   string
		Inputs string
	}
	var rows []row
	now := c.cfg.Now()
	for _, q := range b.Approvals(s.p.Tenant) {
		rows = append(rows, row{q, q.Expires.Sub(now).Round(time.Second).String(), strings.Join(q.Inputs, ",")})
	}
	render(w, http.StatusOK, approvalsPage, c.page(s, map[string]any{"Rows": rows, "Done": r.URL.Query().Get("done")}))
}

func (c *Console) decide(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	if !s.p.Has(fleet.Approver) {
		c.refuse(w, http.StatusForbidden, "Only approvers decide held calls.")
		return
	}
	var inputs []string
	if v := r.PostFormValue("inputs"); v != "" {
		inputs = strings.Split(v, ",")
	} else {
		inputs = []string{}
	}
	approve := r.PostFormValue("decision") == "approve"
	if !approve && r.PostFormValue("decision") != "deny" {
		c.refuse(w, http.StatusBadRequest, "Approve or deny.")
		return
	}
	id := r.PathValue("id")
	if _, err := b.DecideAs(s.p, id, approve, inputs, r.PostFormValue("reason")); err != nil {
		status := http.StatusConflict
		if errors.Is(err, approval.ErrSelf) {
			status = http.StatusForbidden
		}
		c.refuse(w, status, "Not decided: "+err.Error())
		return
	}
	verb := "denied"
	if approve {
		verb = "approved"
	}
	http.Redirect(w, r, "/ui/approvals?done="+url.QueryEscape(verb+" "+id[:min(8, len(id))]), http.StatusSeeOther)
}

// run is a session's record checked in the browser by the checker of
// web/ (the same rules as logbook-verify), against the keys the server
// pins, never trusting the server's word: a record changed on the
// server's disk is shown refused, with its code. The one page with
// script: the checker's own files, and run.js, which fetches the record
// from this origin.
func (c *Console) run(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	more := map[string]any{"ID": r.PathValue("id"), "Keys": strings.Join(b.ConsoleKeys(), ""), "Scripts": checkerScripts}
	if e, err := b.ConsoleEntry(r.Context(), s.p, r.PathValue("id")); err == nil && e != nil {
		more["Entry"] = e
	}
	render(w, http.StatusOK, runPage, c.page(s, more))
}

// sessionsPage is a page of the index's sessions the person may see:
// the filters are the URL's query (GET /v1/sessions's), so a page's
// address can be shared inside the team; newest first, a page at a time.
func (c *Console) sessionsPage(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	v := r.URL.Query()
	pg, err := b.ConsoleSessions(r.Context(), s.p, v)
	var denied *fleet.Denied
	switch {
	case errors.As(err, &denied):
		c.refuse(w, http.StatusForbidden, "The sessions list is for developers (their own) and auditors (the tenant's).")
		return
	case err != nil:
		c.refuse(w, http.StatusBadRequest, "The search cannot be run: "+err.Error())
		return
	}
	next := ""
	if pg.Next != "" {
		nv := url.Values{}
		for k, vs := range v {
			nv[k] = vs
		}
		nv.Set("cursor", pg.Next)
		next = "/ui/sessions?" + nv.Encode()
	}
	// The rows are written here, every value escaped, rather than by the
	// template engine: 50 rows of nine cells cost it several times the
	// search (BenchmarkConsoleSessions).
	var rows strings.Builder
	for _, e := range pg.Sessions {
		id := html.EscapeString(e.ID)
		state := e.Verdict
		if e.Outage() {
			state += " (outage)"
		}
		fmt.Fprintf(&rows, "<tr><td>%s</td><td><a href=\"/ui/run/%s\"><code>%s</code></a></td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			time.UnixMilli(e.StartMS).UTC().Format("2006-01-02 15:04:05Z"), html.EscapeString(url.PathEscape(e.ID)), id,
			html.EscapeString(e.Developer), html.EscapeString(e.Repo), e.Steps, html.EscapeString(e.Level), html.EscapeString(state),
			html.EscapeString(strings.Join(e.Tools, " ")), html.EscapeString(strings.Join(e.Decisions, " ")))
	}
	render(w, http.StatusOK, sessionsPageT, c.page(s, map[string]any{"Rows": template.HTML(rows.String()), "Next": next, "Q": v, "Sorts": sortChoices(v.Get("sort")),
		"Export": "/ui/export?" + v.Encode()}))
}

// sortLabels name the index's orders (index.Sorts) on the sessions page.
var sortLabels = map[string]string{
	index.SortNewest:    "newest first",
	index.SortOldest:    "oldest first",
	index.SortEnd:       "last active first",
	index.SortSteps:     "most steps first",
	index.SortDeveloper: "developer (A–Z)",
	index.SortRepo:      "repository (A–Z)",
}

type sortChoice struct {
	Value, Label string
	Selected     bool
}

// sortChoices are the sort control's options, cur selected ("" newest).
func sortChoices(cur string) []sortChoice {
	out := make([]sortChoice, 0, len(index.Sorts))
	for _, v := range index.Sorts {
		out = append(out, sortChoice{v, sortLabels[v], v == cur || cur == "" && v == index.SortNewest})
	}
	return out
}

// export is the auditor's download of one session (Backend.ConsoleExport),
// for auditors: `logbook-verify --bundle` accepts its bundle offline.
func (c *Console) export(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	if !s.p.Has(fleet.Auditor) {
		c.refuse(w, http.StatusForbidden, "The export is an auditor's.")
		return
	}
	id := r.PathValue("id")
	var z []byte
	var err error
	if id != "" {
		z, err = b.ConsoleExport(r.Context(), s.p, id)
	} else {
		// A search's page: the sessions page's filters, in the URL.
		id = "search"
		z, err = b.ConsoleExportSearch(r.Context(), s.p, r.URL.Query())
	}
	var denied *fleet.Denied
	switch {
	case errors.As(err, &denied):
		c.refuse(w, http.StatusForbidden, "You may not read this session.")
		return
	case err != nil:
		c.refuse(w, http.StatusNotFound, "No export: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(id+".logbook-export.zip"))
	w.Write(z)
}

// coverage is an auditor's page: who stopped recording (silent for
// ?days=, default 7), sessions that stopped without a SessionEnd,
// outages, the policy digests in force per repository, and a link to
// the sessions where a call was denied.
func (c *Console) coverage(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	days, err := strconv.Atoi(r.URL.Query().Get("days"))
	if err != nil || days <= 0 || days > 3650 {
		days = 7
	}
	cov, policies, err := b.ConsoleCoverage(r.Context(), s.p, days)
	var denied *fleet.Denied
	switch {
	case errors.As(err, &denied):
		c.refuse(w, http.StatusForbidden, "Coverage is for auditors.")
		return
	case err != nil:
		c.refuse(w, http.StatusBadRequest, "Coverage cannot be read: "+err.Error())
		return
	}
	render(w, http.StatusOK, coveragePage, c.page(s, map[string]any{"Days": days, "Cov": cov, "Policies": policies}))
}

// commits shows, for a repository (repo), which commits came from which
// sessions, from the index's commits: the server holds no repository, so
// a range or a PR is the list of its commit ids the person gives
// (commits: `git rev-list BASE..HEAD`'s lines, pasted into the form, a
// POST, or in the address, comma-separated), or a PR's head commit
// (head: the sessions that name it, and every commit they name). Each
// commit is shown with the sessions naming it, their developer and
// level, or as named by none. Without a list it is every commit the
// repository's newest sessions name. The binding itself is checked by
// logbook-verify --commits (docs/commits.md).
func (c *Console) commits(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	repo := r.FormValue("repo")
	type named struct{ Session, Developer, Level string }
	type row struct {
		Commit string
		By     []named
		Head   bool // a commit the head's sessions name (or the head)
	}
	var rows []row
	search := func(v url.Values) ([]*index.Session, bool) {
		v.Set("repo", repo)
		pg, err := b.ConsoleSessions(r.Context(), s.p, v)
		var denied *fleet.Denied
		switch {
		case errors.As(err, &denied):
			c.refuse(w, http.StatusForbidden, "The commits page is for developers (their own sessions) and auditors.")
			return nil, false
		case err != nil:
			c.refuse(w, http.StatusBadRequest, "The search cannot be run: "+err.Error())
			return nil, false
		}
		return pg.Sessions, true
	}
	list, err := commitList(r.FormValue("commits"))
	if err != nil {
		c.refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	head := strings.ToLower(strings.TrimSpace(r.FormValue("head")))
	if head != "" {
		if _, err := commitList(head); err != nil || strings.ContainsAny(head, " ,\n") {
			c.refuse(w, http.StatusBadRequest, "The head is not one commit id: "+head)
			return
		}
	}
	listed := len(list) > 0 || head != ""
	switch {
	case repo == "":
	case listed:
		// The head's sessions, then every commit they name, after the
		// list given.
		seen := map[string]bool{}
		for _, cm := range list {
			seen[cm] = true
		}
		var more []string
		if head != "" {
			ss, ok := search(url.Values{"commit": {head}, "limit": {strconv.Itoa(index.MaxLimit)}})
			if !ok {
				return
			}
			more = append(more, head)
			for _, e := range ss {
				more = append(more, e.Commits...)
			}
		}
		all := append([]string(nil), list...)
		headOf := map[string]bool{}
		for _, cm := range more {
			headOf[cm] = true
			if !seen[cm] {
				seen[cm] = true
				all = append(all, cm)
			}
		}
		if len(all) > maxCommits {
			c.refuse(w, http.StatusBadRequest, fmt.Sprintf("%d commits: at most %d at a time (split the range).", len(all), maxCommits))
			return
		}
		for _, cm := range all {
			ss, ok := search(url.Values{"commit": {cm}, "limit": {"20"}})
			if !ok {
				return
			}
			rw := row{Commit: cm, Head: headOf[cm]}
			for _, e := range ss {
				rw.By = append(rw.By, named{e.ID, e.Developer, e.Level})
			}
			rows = append(rows, rw)
		}
	default:
		ss, ok := search(url.Values{"limit": {strconv.Itoa(index.MaxLimit)}})
		if !ok {
			return
		}
		for _, e := range ss {
			for _, cm := range e.Commits {
				rows = append(rows, row{Commit: cm, By: []named{{e.ID, e.Developer, e.Level}}})
			}
		}
	}
	render(w, http.StatusOK, commitsPage, c.page(s, map[string]any{"Repo": repo, "Rows": rows, "Listed": listed,
		"Commits": strings.Join(list, "\n"), "Head": head}))
}

// maxCommits bounds a list's lookups (one indexed search each).
const maxCommits = 1000

// commitList reads commit ids, one per line or comma- or space-separated
// (git rev-list's output as it is): each a full SHA-1 or SHA-256 id in
// hex, as the index keeps them (an abbreviated one names nothing there).
func commitList(text string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		id := strings.ToLower(f)
		if (len(id) != 40 && len(id) != 64) || strings.Trim(id, "0123456789abcdef") != "" {
			if len(f) > 80 {
				f = f[:80] + "…"
			}
			return nil, fmt.Errorf("%q is not a full commit id (40 or 64 hex digits, as git rev-list prints them)", f)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
		if len(out) > maxCommits {
			return nil, fmt.Errorf("more than %d commits: split the range", maxCommits)
		}
	}
	return out, nil
}

// checkerScripts are web/index.html's scripts, in its order (served by
// logbook-server at /), then the console's run.js.
var checkerScripts = []string{"/js/sha256.js", "/js/strictjson.js", "/js/jcs.js", "/js/shape.js", "/js/ed25519.js", "/js/codes.js",
	"/js/verify.js", "/js/split.js", "/js/checkpoint.js", "/js/cassette.js", "/js/review.js", "/js/bundle.js", "/js/app.js", "/ui/run.js"}

func (c *Console) record(w http.ResponseWriter, r *http.Request, s *session, b Backend) {
	f, size, err := b.ConsoleRecordFile(s.p, r.PathValue("id"))
	var denied *fleet.Denied
	switch {
	case errors.As(err, &denied):
		http.Error(w, "you may not read this session: "+denied.Err.Error(), http.StatusForbidden)
		return
	case err != nil:
		http.Error(w, "no record: "+err.Error(), http.StatusNotFound)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/json")
	// Its length, and the file itself: the bytes go out as they lie
	// (sendfile where the system has it), the first at once, where
	// reading a 50 MB record whole first held the page's download back.
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	io.CopyN(w, f, size)
}

func render(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := t.ExecuteTemplate(w, "page", data); err != nil {
		fmt.Fprintf(w, "<p>page error</p>")
	}
}
