package server_test

import (
	"bytes"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/oidcop"
)

// BenchmarkAppendFleet: one hook event through the handler (fsync off:
// the CPU of an event, not the disk's wait) as the shared token, as an
// enrolled credential (a stat of its file and a cached lookup), and as
// an OIDC token (verified once, then found by its hash until it
// expires). The actor's member is written in both fleet arms.
func BenchmarkAppendFleet(b *testing.B) {
	op := oidcop.Start(b)
	for _, arm := range []string{"token", "credential", "oidc"} {
		b.Run(arm, func(b *testing.B) {
			var bearer string
			f := newServer(b, func(c *server.Config, _ *http.Server) {
				c.Fsync, c.Token = server.FsyncOff, "shared-token"
				bearer = c.Token
				if arm == "token" {
					return
				}
				st, err := fleet.OpenStore(c.Dir)
				if err != nil {
					b.Fatal(err)
				}
				c.Fleet = &server.Fleet{Store: st}
				switch arm {
				case "credential":
					code, _ := st.Enroll("acme", "dev1", nil, time.Hour, time.Now(), rand.Reader)
					if bearer, _, err = st.Redeem(code, time.Now(), rand.Reader); err != nil {
						b.Fatal(err)
					}
				case "oidc":
					c.Fleet.OIDC, err = oidcauth.New(oidcauth.Config{Issuers: []oidcauth.Issuer{{Issuer: op.Issuer,
						Audiences: []string{oidcop.Audience}, TenantClaim: "tenant", RolesClaim: "roles"}}}, nil, nil)
					if err != nil {
						b.Fatal(err)
					}
					bearer = op.Token(b, "dev1")
				}
			})
			h := f.srv.Handler()
			body := event("bench", "PreToolUse", 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := httptest.NewRequest("POST", "/v1/hooks/claude-code", bytes.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+bearer)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}
