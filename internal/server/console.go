package server

import (
	"context"
	"crypto/ed25519"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/approval"
	"github.com/logbook-project/logbook/internal/console"
	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// newConsole makes the web console of Config.Console (docs/console.md):
// people sign in with the fleet's OIDC issuer, and their roles are the
// fleet's mapping of its tokens, the same as the API's.
func newConsole(cfg Config) (*console.Console, error) {
	if cfg.Console == nil {
		return nil, nil
	}
	if cfg.Fleet == nil || cfg.Fleet.OIDC == nil {
		return nil, errors.New("the console signs people in with the fleet's OpenID provider: start with --fleet and --oidc-config")
	}
	cc := *cfg.Console
	cc.Principal = cfg.Fleet.OIDC.Verify
	if cc.Assets == nil {
		cc.Assets = cfg.Web
	}
	if cc.Now == nil {
		cc.Now = cfg.Now
	}
	return console.New(cc)
}

func (s *Server) consoleRoutes(mux *http.ServeMux) {
	if s.console != nil {
		mux.Handle("/ui/", s.console.Handler(s))
	}
}

// DecideAs is the decision of the fleet principal p on held call id: the
// console's approve and deny buttons.
func (s *Server) DecideAs(p fleet.Principal, id string, approve bool, inputs []string, reason string) (approval.Request, error) {
	if p.Subject == "" || !p.Has(fleet.Approver) {
		return approval.Request{}, approval.ErrNoName
	}
	return s.Decide(id, approver{p.Subject, p.Tenant, &p}, approve, inputs, reason)
}

// ConsoleFlags are logbook-server's console flags (docs/console.md).
type ConsoleFlags struct {
	url, issuer, client, secretFile string
	ttl                             time.Duration
}

// Register adds the flags to fs.
func (f *ConsoleFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "console-url", "", "serve the web console at `URL`/ui/ (https://HOST[:PORT], as browsers reach this server; http only on loopback): people sign in with --console-issuer, and see what their fleet role allows (needs --fleet and --oidc-config naming the issuer with the console's client id among its audiences)")
	fs.StringVar(&f.issuer, "console-issuer", "", "the OpenID provider's issuer `URL` the console signs people in with")
	fs.StringVar(&f.client, "console-client", "", "the console's OAuth client `ID` at the provider (authorization code with PKCE)")
	fs.StringVar(&f.secretFile, "console-secret-file", "", "`FILE` holding the console client's secret (none: a public client, PKCE only)")
	fs.DurationVar(&f.ttl, "console-session", 8*time.Hour, "how long a console sign-in lasts")
}

// Config is the console's configuration from the flags; nil without
// --console-url.
func (f *ConsoleFlags) Config() (*console.Config, error) {
	if f.url == "" {
		if f.issuer != "" || f.client != "" || f.secretFile != "" {
			return nil, errors.New("--console-issuer, --console-client and --console-secret-file need --console-url")
		}
		return nil, nil
	}
	if f.issuer == "" || f.client == "" {
		return nil, errors.New("--console-url needs --console-issuer and --console-client")
	}
	c := &console.Config{URL: f.url, Issuer: f.issuer, ClientID: f.client, TTL: f.ttl}
	if f.secretFile != "" {
		b, err := readlimit.Small(f.secretFile, 4096)
		if err != nil {
			return nil, fmt.Errorf("--console-secret-file: %w", err)
		}
		c.ClientSecret = strings.TrimSpace(string(b))
	}
	return c, nil
}

// ErrNotSealed is ConsoleRecord's error for a session with no record yet.
var ErrNotSealed = errors.New("the session has no sealed record yet")

// ConsoleRecord is session id's sealed record as it lies on disk, for p
// to check in the browser: the server's bytes, whatever they are (a
// record changed on the disk is shown refused, by the browser's own
// check). p must be allowed to read the session (fleet.Authorize).
func (s *Server) ConsoleRecord(p fleet.Principal, id string) ([]byte, error) {
	f, size, err := s.ConsoleRecordFile(p, id)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return b, nil
}

// ConsoleRecordFile is ConsoleRecord as the open file and its size, for
// the run page's download: a long record is sent as it lies (sendfile),
// its first bytes at once, not read whole into memory first.
func (s *Server) ConsoleRecordFile(p fleet.Principal, id string) (*os.File, int64, error) {
	o, err := s.SessionOwner(id)
	if err != nil {
		return nil, 0, err
	}
	if err := fleet.Authorize(p, fleet.Read, o); err != nil {
		return nil, 0, err
	}
	f, size, err := readlimit.Open(filepath.Join(s.cfg.Dir, id+".record.json"), readlimit.Record)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, ErrNotSealed
	}
	return f, size, err
}

// ConsoleKeys are what the browser pins: the server's public key (SPKI
// PEM) and the previous ones it handed over from.
func (s *Server) ConsoleKeys() []string {
	_, pub, err := keys.MarshalPair(s.cfg.Key, s.cfg.Key.Public().(ed25519.PublicKey))
	if err != nil {
		return nil
	}
	out := []string{string(pub)}
	for _, r := range s.rotations {
		out = append(out, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: edkey.SPKI(r.Old)})))
	}
	return out
}

// ErrNoIndex is the console's error on a server with no session index.
var ErrNoIndex = errors.New("this server keeps no session index (logbook-server --index)")

// ConsoleSessions is a page of the sessions p may see, filtered by v (the
// query parameters of GET /v1/sessions): an auditor's tenant's, a
// developer's own.
func (s *Server) ConsoleSessions(ctx context.Context, p fleet.Principal, v url.Values) (index.Page, error) {
	if s.cfg.Index == nil {
		return index.Page{}, ErrNoIndex
	}
	q, err := QueryOf(v)
	if err != nil {
		return index.Page{}, err
	}
	q.Tenant = p.Tenant
	switch {
	case p.Has(fleet.Auditor):
	case p.Has(fleet.Developer):
		q.Developer = p.Subject
	default:
		return index.Page{}, &fleet.Denied{Principal: p, Action: fleet.Read, Err: fleet.ErrRole}
	}
	return s.cfg.Index.Search(ctx, q)
}

// ConsoleEntry is what the index says of session id, for p who may read
// it (nil, nil: the index has no entry, or the server no index).
func (s *Server) ConsoleEntry(ctx context.Context, p fleet.Principal, id string) (*index.Session, error) {
	if s.cfg.Index == nil {
		return nil, nil
	}
	o, err := s.SessionOwner(id)
	if err != nil {
		return nil, err
	}
	if err := fleet.Authorize(p, fleet.Read, o); err != nil {
		return nil, err
	}
	return s.cfg.Index.Get(ctx, p.Tenant, id)
}

// ConsoleCoverage is the tenant's coverage for an auditor (the index's:
// developers silent for days, sessions stopped without a SessionEnd,
// outages), with the policy digests the recent sessions were gated by,
// per repository.
func (s *Server) ConsoleCoverage(ctx context.Context, p fleet.Principal, days int) (index.Coverage, map[string][]string, error) {
	if s.cfg.Index == nil {
		return index.Coverage{}, nil, ErrNoIndex
	}
	if !p.Has(fleet.Auditor) {
		return index.Coverage{}, nil, &fleet.Denied{Principal: p, Action: fleet.Read, Err: fleet.ErrRole}
	}
	now := s.cfg.Now()
	q := index.CoverageQuery{Tenant: p.Tenant, SinceMS: now.AddDate(0, 0, -days).UnixMilli(), QuietMS: now.Add(-time.Hour).UnixMilli(), Limit: 100}
	enrolledOf := s.cfg.Enrolled
	if enrolledOf == nil && s.cfg.Fleet != nil {
		enrolledOf = s.fleetEnrolled
	}
	if enrolledOf != nil {
		dev, err := enrolledOf(p.Tenant)
		if err != nil {
			return index.Coverage{}, nil, err
		}
		q.Developers = dev
	}
	cov, err := s.cfg.Index.Coverage(ctx, q)
	if err != nil {
		return cov, nil, err
	}
	pg, err := s.cfg.Index.Search(ctx, index.Query{Tenant: p.Tenant, SinceMS: q.SinceMS, Limit: index.MaxLimit})
	if err != nil {
		return cov, nil, err
	}
	policies := map[string][]string{}
	for _, e := range pg.Sessions {
		d := e.Policy
		if d == "" {
			d = "none"
		}
		if !slices.Contains(policies[e.Repo], d) {
			policies[e.Repo] = append(policies[e.Repo], d)
		}
	}
	return cov, policies, nil
}
