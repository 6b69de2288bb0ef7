package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/approval"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/index"
)

// nobody is a Backend the tests never reach: every route below refuses
// before it asks.
type nobody struct{}

func (nobody) Approvals(string) []approval.Request { panic("asked") }
func (nobody) DecideAs(fleet.Principal, string, bool, []string, string) (approval.Request, error) {
	panic("asked")
}
func (nobody) ConsoleRecordFile(fleet.Principal, string) (*os.File, int64, error) {
	panic("asked")
}
func (nobody) ConsoleKeys() []string { panic("asked") }
func (nobody) ConsoleSessions(context.Context, fleet.Principal, url.Values) (index.Page, error) {
	panic("asked")
}
func (nobody) ConsoleEntry(context.Context, fleet.Principal, string) (*index.Session, error) {
	panic("asked")
}
func (nobody) ConsoleExport(context.Context, fleet.Principal, string) ([]byte, error) { panic("asked") }
func (nobody) ConsoleExportSearch(context.Context, fleet.Principal, url.Values) ([]byte, error) {
	panic("asked")
}
func (nobody) ConsoleCoverage(context.Context, fleet.Principal, int) (index.Coverage, map[string][]string, error) {
	panic("asked")
}

// TestRefusedUnsignedIn: without a session (no cookie, a forged one) a
// page sends the browser to sign in and a POST is refused; every answer
// forbids framing and script; a console URL that is not an origin is
// refused at start. (The sign-in itself, CSRF and the roles are tested in
// Chromium against a real OpenID provider: e2e TestConsoleApprovals.)
func TestRefusedUnsignedIn(t *testing.T) {
	if _, err := New(Config{Issuer: "http://127.0.0.1:1", ClientID: "c", URL: "http://127.0.0.1:2/ui", Principal: func(context.Context, string) (fleet.Principal, error) { return fleet.Principal{}, nil }}); err == nil {
		t.Error("a console URL with a path was taken")
	}
	c, err := New(Config{Issuer: "http://127.0.0.1:1", ClientID: "c", URL: "http://127.0.0.1:2", Principal: func(context.Context, string) (fleet.Principal, error) { return fleet.Principal{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handler(nobody{})
	for _, r := range []struct {
		method, path, cookie string
		want                 int
	}{
		{"GET", "/ui/approvals", "", http.StatusSeeOther},
		{"GET", "/ui/sessions", strings.Repeat("A", 43), http.StatusSeeOther},
		{"GET", "/ui/run/x", "short", http.StatusSeeOther},
		{"GET", "/ui/record/x", "", http.StatusSeeOther},
		{"POST", "/ui/logout", "", http.StatusUnauthorized},
		{"POST", "/ui/approvals/x", strings.Repeat("B", 43), http.StatusUnauthorized},
		{"GET", "/ui/callback?state=x&code=y", "", http.StatusBadRequest},
	} {
		req := httptest.NewRequest(r.method, r.path, nil)
		if r.cookie != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: r.cookie})
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != r.want {
			t.Errorf("%s %s: %d, want %d", r.method, r.path, w.Code, r.want)
		}
		if r.want == http.StatusSeeOther && w.Header().Get("Location") != "/ui/login" {
			t.Errorf("%s %s: sent to %q", r.method, r.path, w.Header().Get("Location"))
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "script-src") || w.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: headers %v", r.method, r.path, w.Header())
		}
	}
}
