package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/logbook-project/logbook/internal/console"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/oidcop"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
	"github.com/logbook-project/logbook/web"
)

// consoleServerKey is the console fixture's server key.
var consoleServerKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))

// consoleFixture is a fleet logbook-server (in this process) whose
// policy holds `echo 7`, with its console at /ui/, signing people in
// with a real OpenID provider (oidcop, its own process).
type consoleFixture struct {
	op  *oidcop.Provider
	url string
	dir string // the server's data directory
	ix  *index.Index
}

func newConsoleFixture(t testing.TB) *consoleFixture {
	t.Helper()
	op := oidcop.Start(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	dir := t.TempDir()
	st, err := fleet.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := oidcauth.New(oidcauth.Config{Issuers: []oidcauth.Issuer{{Issuer: op.Issuer,
		Audiences: []string{oidcop.Audience, oidcop.ConsoleClient}, TenantClaim: "tenant", RolesClaim: "roles"}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","name":"t","rules":[{"name":"seven-needs-a-person","when":"tool == 'Bash' && input.command == 'echo 7'","decision":"hold","reason":"7 needs a person"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := gate.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	srv, err := server.New(server.Config{Index: ix, Dir: dir, Origin: "console.test", Key: consoleServerKey,
		Web: web.Files, Fleet: &server.Fleet{Store: st, OIDC: v}, Token: "hook-token-0123456789", ReadToken: "read-token-0123456789",
		Gate:    &gate.Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: p}},
		Console: &console.Config{Issuer: op.Issuer, ClientID: oidcop.ConsoleClient, ClientSecret: oidcop.ConsoleSecret, URL: base}})
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: l, Config: &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second}}
	ts.Start()
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return &consoleFixture{op: op, url: base, dir: dir, ix: ix}
}

// hold sends the held call `echo 7` of session as user (their OIDC
// access token), the hook waiting wait seconds, and answers the decision header and
// body on the channel.
func (f *consoleFixture) hold(t *testing.T, user, session string, wait int) <-chan [2]string {
	tok := f.op.Token(t, user)
	out := make(chan [2]string, 1)
	body := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PreToolUse","cwd":"/work","tool_name":"Bash","tool_use_id":"toolu_%d","tool_input":{"command":"echo 7"}}`, session, time.Now().UnixNano())
	go func() {
		req, _ := http.NewRequest("POST", f.url+"/v1/hooks/claude-code", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-Logbook-Wait", fmt.Sprint(wait))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- [2]string{"error", err.Error()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out <- [2]string{resp.Header.Get("X-Logbook-Decision"), string(b)}
	}()
	return out
}

// consoleBrowser is one person's headless Chromium.
type consoleBrowser struct {
	ctx context.Context
}

func newConsoleBrowser(t testing.TB) *consoleBrowser {
	t.Helper()
	if testing.Short() {
		t.Skip("browser: not under -short")
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chromiumPath(t)), chromedp.Flag("headless", true), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", false), chromedp.WindowSize(1280, 900)}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	return &consoleBrowser{ctx: ctx}
}

func (b *consoleBrowser) run(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		c2, cancel2 := context.WithTimeout(b.ctx, 5*time.Second)
		defer cancel2()
		body, _ := chromedp.Run(c2, chromedp.Evaluate[string](`location.href + ": " + document.body.innerText`))
		t.Fatalf("%v (the page: %s)", err, body)
	}
}

// get runs one action that gives a value.
func get[T any](t testing.TB, b *consoleBrowser, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// signIn goes to a console page, is sent to the provider's login form,
// types user's name and password, and comes back signed in.
func (b *consoleBrowser) signIn(t testing.TB, f *consoleFixture, user string) {
	t.Helper()
	b.run(t, chromedp.Navigate(f.url+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS(`#username`)),
		chromedp.SendKeys(chromedp.CSS(`#username`), user),
		chromedp.SendKeys(chromedp.CSS(`#password`), oidcop.Password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#go`)),
		chromedp.Click(chromedp.CSS(`#go`)),
		chromedp.WaitVisible(chromedp.CSS(`form.who`)))
}

func (b *consoleBrowser) text(t *testing.T, sel string) string {
	return get(t, b, chromedp.Text(chromedp.CSS(sel)))
}

func (b *consoleBrowser) cookie(t *testing.T) *network.Cookie {
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cookies {
		if c.Name == "logbook_console" {
			return c
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// waitCall reloads the approvals page until the held call of requester
// is listed, and returns its element id.
func (b *consoleBrowser) waitCall(t *testing.T, f *consoleFixture, n int) {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		b.run(t, chromedp.Navigate(f.url+"/ui/approvals"), chromedp.WaitVisible(chromedp.CSS(`main`)))
		if got := get(t, b, chromedp.Evaluate[int](`document.querySelectorAll('li.call').length`)); got == n {
			return
		}
	}
	t.Fatalf("the approvals page never listed %d held call(s)", n)
}

// consoleGet is a request to the console with the session cookie value
// (empty: none), following no redirect.
func consoleGet(t *testing.T, method, u, cookie string, form url.Values, origin string) (int, string, http.Header) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "logbook_console", Value: cookie})
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestConsoleApprovals: in real Chromium, people sign in to the console
// through the real OpenID provider (code flow with PKCE): a developer sees
// no approvals (the page refuses them); an approver sees the held call of
// a developer of the tenant, not one of another tenant's, approves it with
// the button (the hook is answered allow) and denies the next (deny). The
// session cookie is HttpOnly and SameSite=Strict; every page forbids
// framing and inline script; a forged cookie and the cookie replayed
// after sign-out are sent to sign in; a POST without the CSRF token, or
// from another origin, is refused and decides nothing. The page has no
// horizontal scrolling at 360 and 2,560 px (screenshots in
// docs/console.md).
func TestConsoleApprovals(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)

	dev := newConsoleBrowser(t)
	dev.signIn(t, f, "dev1")
	if links := get(t, dev, chromedp.Evaluate[int](`document.querySelectorAll('a[href="/ui/approvals"]').length`)); links != 0 {
		t.Error("the developer is shown the approvals link")
	}
	dev.run(t, chromedp.Navigate(f.url+"/ui/approvals"), chromedp.WaitVisible(chromedp.CSS(`main`)))
	if s := dev.text(t, `h1`); !strings.Contains(s, "Refused (403)") {
		t.Errorf("the developer's approvals page: %q", s)
	}

	appr := newConsoleBrowser(t)
	appr.signIn(t, f, "appr1")
	ck := appr.cookie(t)
	if !ck.HTTPOnly || ck.SameSite != network.CookieSameSiteStrict || ck.Path != "/ui/" || ck.Expires <= 0 {
		t.Errorf("session cookie: httpOnly %v sameSite %v path %s expires %v", ck.HTTPOnly, ck.SameSite, ck.Path, ck.Expires)
	}
	other := f.hold(t, "dev3", "console-other", 10) // tenant other: not appr1's
	ans := f.hold(t, "dev1", "console-1", 60)
	appr.waitCall(t, f, 1)
	if s := appr.text(t, `li.call .requester`); s != "dev1" {
		t.Errorf("requester shown: %q", s)
	}
	// A POST without the CSRF token, and one from another origin, decide
	// nothing.
	id := strings.TrimPrefix(get(t, appr, chromedp.AttributeValue(chromedp.CSS(`li.call`), "id")).Value, "call-")
	inputs := get(t, appr, chromedp.Value(chromedp.CSS(`li.call input[name=inputs]`)))
	if code, _, _ := consoleGet(t, "POST", f.url+"/ui/approvals/"+id, ck.Value, url.Values{"decision": {"approve"}, "inputs": {inputs}}, ""); code != 403 {
		t.Errorf("POST without CSRF token: %d", code)
	}
	csrf := get(t, appr, chromedp.Value(chromedp.CSS(`li.call input[name=csrf]`)))
	if code, _, _ := consoleGet(t, "POST", f.url+"/ui/approvals/"+id, ck.Value, url.Values{"decision": {"approve"}, "inputs": {inputs}, "csrf": {csrf}}, "http://evil.example"); code != 403 {
		t.Errorf("POST from another origin: %d", code)
	}
	if code, _, _ := consoleGet(t, "GET", f.url+"/ui/approvals", strings.Repeat("A", 43), nil, ""); code != 303 {
		t.Errorf("forged cookie: %d, want 303 to sign in", code)
	}
	code, _, hd := consoleGet(t, "GET", f.url+"/ui/approvals", ck.Value, nil, "")
	if code != 200 || !strings.Contains(hd.Get("Content-Security-Policy"), "frame-ancestors 'none'") || strings.Contains(hd.Get("Content-Security-Policy"), "unsafe-inline") || hd.Get("X-Frame-Options") != "DENY" {
		t.Errorf("approvals page: %d, headers %v", code, hd)
	}
	// Layout: no horizontal scrolling from 360 to 2,560 px.
	shots := map[int][]byte{}
	for _, w := range []int{360, 1280, 2560} {
		appr.run(t, chromedp.EmulateViewport(int64(w), 800), chromedp.Navigate(f.url+"/ui/approvals"), chromedp.WaitVisible(chromedp.CSS(`li.call`)))
		sw := get(t, appr, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		cw := get(t, appr, chromedp.Evaluate[int](`document.documentElement.clientWidth`))
		png := get(t, appr, chromedp.CaptureScreenshot())
		if sw > cw {
			t.Errorf("%d px: scrollWidth %d > clientWidth %d", w, sw, cw)
		}
		shots[w] = png
	}
	if d := os.Getenv("LOGBOOK_CONSOLE_SHOTS"); d != "" {
		for w, png := range shots {
			os.WriteFile(filepath.Join(d, fmt.Sprintf("console-approvals-%d.png", w)), png, 0o644)
		}
	}
	appr.run(t, chromedp.EmulateViewport(1280, 900))
	// Approve with the keyboard: focus the button, press Enter.
	appr.run(t, chromedp.Navigate(f.url+"/ui/approvals"), chromedp.WaitVisible(chromedp.CSS(`li.call button.approve`)),
		chromedp.Focus(chromedp.CSS(`li.call button.approve`)), chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`p.done`)))
	if a := <-ans; a[0] != "allow" {
		t.Errorf("approved in the browser: the hook was answered %q %s", a[0], a[1])
	}
	ans = f.hold(t, "dev1", "console-1", 60)
	appr.waitCall(t, f, 1)
	appr.run(t, chromedp.Click(chromedp.CSS(`li.call button.deny`)), chromedp.WaitVisible(chromedp.CSS(`p.done`)))
	if a := <-ans; a[0] != "deny" || !strings.Contains(a[1], "denied by approver appr1") {
		t.Errorf("denied in the browser: the hook was answered %q %s", a[0], a[1])
	}
	// Sign out; the old cookie is refused.
	appr.run(t, chromedp.Click(chromedp.CSS(`form.who button`)), chromedp.WaitVisible(chromedp.CSS(`#signed-out`)))
	if code, _, _ := consoleGet(t, "GET", f.url+"/ui/approvals", ck.Value, nil, ""); code != 303 {
		t.Errorf("cookie replayed after sign-out: %d, want 303 to sign in", code)
	}
	if a := <-other; a[0] != "deny" || !strings.Contains(a[1], "no approver decided within 5s") {
		t.Errorf("the other tenant's call (no approver of its own): %q %s", a[0], a[1])
	}
	// dev1's run page: each held call shows who sent it (dev1, attested)
	// and its approver's decision, attested as the approver's.
	f.send(t, "dev1", "console-1", "SessionEnd", `,"reason":"other"`)
	if ok, code := dev.verdictOf(t, f, "console-1"); ok != "true" {
		t.Fatalf("dev1's run of the held calls: ok %s code %s", ok, code)
	}
	calls := get(t, dev, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#review .call')].map(c => c.innerText)`))
	var approved, actors int
	for _, c := range calls {
		// The approval's gate step is attested as appr1's.
		if strings.Contains(c, "approved by appr1 — decided by appr1 in acme (oidc)") {
			approved++
		}
		if strings.Contains(c, "by dev1 in acme (oidc)") {
			actors++
		}
	}
	if approved != 1 || actors != 2 {
		t.Errorf("the run page's held calls (%d approved by appr1, %d sent by dev1, want 1 and 2): %q", approved, actors, calls)
	}
	testreport.Line(t, "console in Chromium through the real OpenID provider: developer refused the queue, approver approved (keyboard) and denied held calls (hook answered allow, deny), other tenant's call not shown, CSRF/origin/forged/replayed cookies refused, no horizontal scroll at 360-2560 px")
}

// send posts one hook event of session as user and fails the test unless
// it is recorded.
func (f *consoleFixture) send(t *testing.T, user, session, event string, extra string) {
	t.Helper()
	body := fmt.Sprintf(`{"session_id":%q,"hook_event_name":%q,"cwd":"/work"%s}`, session, event, extra)
	req, _ := http.NewRequest("POST", f.url+"/v1/hooks/claude-code", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.op.Token(t, user))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", event, resp.StatusCode, b)
	}
}

// verdictOf opens the run page of session and waits for the browser's
// verdict: ok and the refusal's code, or the fetch's failure.
func (b *consoleBrowser) verdictOf(t *testing.T, f *consoleFixture, session string) (ok, code string) {
	t.Helper()
	b.run(t, chromedp.Navigate(f.url+"/ui/run/"+session), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"], body[data-state="fetch-failed"]`)))
	if st := get(t, b, chromedp.Evaluate[string](`document.body.dataset.state`)); st == "fetch-failed" {
		return "fetch-failed", b.text(t, `#fetch`)
	}
	return get(t, b, chromedp.Evaluate[string](`document.getElementById('verdict').dataset.ok`)),
		get(t, b, chromedp.Evaluate[string](`document.getElementById('verdict').dataset.code`))
}

// TestConsoleRun: a session dev1 recorded through the fleet server is
// listed on the console's sessions page (from the index: dev1's own, the
// auditor's tenant's, not another tenant's; the URL's filters filter), and
// opened on the console's run page and checked in Chromium by web/'s
// checker against the server's key: accepted for dev1 and for aud1 (an
// auditor of the tenant), not even fetched for dev3 (another tenant:
// 403). The record is then changed on the server's disk: a step edited
// and the chain relinked is shown refused SIGNATURE_INVALID, the same
// re-signed by another key SIGNER_NOT_TRUSTED, though the index still
// lists it as sealed, and the page marks that disagreement: the browser
// does not take the server's word.
func TestConsoleRun(t *testing.T) {
	t.Parallel()
	f := newConsoleFixture(t)
	const sid = "console-run-1"
	f.send(t, "dev1", sid, "SessionStart", `,"source":"startup"`)
	f.send(t, "dev1", sid, "PreToolUse", `,"tool_name":"Bash","tool_use_id":"toolu_r1","tool_input":{"command":"echo 1"},"user_email":"alice"`)
	f.send(t, "dev1", sid, "PostToolUse", `,"tool_name":"Bash","tool_use_id":"toolu_r1","tool_input":{"command":"echo 1"},"tool_response":{"stdout":"1"}`)
	f.send(t, "dev1", sid, "SessionEnd", `,"reason":"other"`)
	file := filepath.Join(f.dir, sid+".record.json")
	rec, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dev := newConsoleBrowser(t)
	dev.signIn(t, f, "dev1")
	// The index is fed after the append: its row comes soon after.
	listed := func(b *consoleBrowser, q string) int {
		b.run(t, chromedp.Navigate(f.url+"/ui/sessions"+q), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
		return get(t, b, chromedp.Evaluate[int](`document.querySelectorAll('#sessions a[href="/ui/run/`+sid+`"]').length`))
	}
	for end := time.Now().Add(time.Minute); listed(dev, "") == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("dev1's sessions page never listed the session")
		}
	}
	if listed(dev, "?tool=Bash&developer=dev1") != 1 || listed(dev, "?tool=NoSuchTool") != 0 {
		t.Error("the sessions page's filters (shareable in the URL) do not filter")
	}
	// The sort control from the keyboard: the select takes a typed
	// letter ("m": most steps first), Enter on the button searches, and
	// the sort is in the page's address and kept selected.
	dev.run(t, chromedp.Navigate(f.url+"/ui/sessions?developer=dev1"), chromedp.WaitVisible(chromedp.CSS(`#sort`)),
		chromedp.Focus(chromedp.CSS(`#sort`)), chromedp.KeyEvent("m"),
		chromedp.Focus(chromedp.CSS(`form.filters button[type=submit]`)), chromedp.KeyEvent("\r"))
	// Enter starts the navigation: wait for the new page.
	for end := time.Now().Add(time.Minute); !strings.Contains(get(t, dev, chromedp.Evaluate[string](`document.readyState == 'complete' ? location.search : ''`)), "sort="); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the sessions page never searched with the sort")
		}
	}
	dev.run(t, chromedp.WaitVisible(chromedp.CSS(`#sort`)))
	if loc, sel := get(t, dev, chromedp.Evaluate[string](`location.search`)), get(t, dev, chromedp.Evaluate[string](`document.getElementById('sort').value`)); !strings.Contains(loc, "sort=steps") || !strings.Contains(loc, "developer=dev1") || sel != "steps" {
		t.Errorf("the sort control from the keyboard: address %q, selected %q", loc, sel)
	}
	if listed(dev, "?sort=steps") != 1 || listed(dev, "?sort=oldest&tool=Bash") != 1 || listed(dev, "?sort=developer") != 1 {
		t.Error("a sorted sessions page does not list the session")
	}
	if code, _, _ := consoleGet(t, "GET", f.url+"/ui/sessions?sort=size", dev.cookie(t).Value, nil, ""); code != 400 {
		t.Errorf("an unknown sort: %d, want 400", code)
	}
	if ok, code := dev.verdictOf(t, f, sid); ok != "true" {
		t.Fatalf("dev1's own run: ok %s code %s", ok, code)
	}
	// Each call names its actor, attested by the server (the OIDC
	// token's subject and tenant), and what the client only claimed.
	if a := dev.text(t, `#review .call[data-id="toolu_r1"] .actor`); !strings.Contains(a, "dev1 in acme (oidc)") || !strings.Contains(a, "claims alice (asserted)") {
		t.Errorf("the call's actor on the run page: %q", a)
	}
	for _, w := range []int{360, 2560} {
		for _, pg := range []string{"/ui/sessions", "/ui/run/" + sid, "/ui/commits?repo=work&commits=" + strings.Repeat("d4", 20)} {
			dev.run(t, chromedp.EmulateViewport(int64(w), 900), chromedp.Navigate(f.url+pg), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
			if strings.HasPrefix(pg, "/ui/run/") {
				dev.run(t, chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))
			}
			sw := get(t, dev, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			cw := get(t, dev, chromedp.Evaluate[int](`document.documentElement.clientWidth`))
			if sw > cw {
				t.Errorf("%s at %d px: scrollWidth %d > clientWidth %d", pg, w, sw, cw)
			}
			if d := os.Getenv("LOGBOOK_CONSOLE_SHOTS"); d != "" && w == 360 {
				os.WriteFile(filepath.Join(d, "console-"+strings.Split(strings.Split(pg, "?")[0], "/")[2]+"-360.png"), get(t, dev, chromedp.CaptureScreenshot()), 0o644)
			}
		}
	}
	dev.run(t, chromedp.EmulateViewport(1280, 900))
	if d := os.Getenv("LOGBOOK_CONSOLE_SHOTS"); d != "" {
		dev.run(t, chromedp.Navigate(f.url+"/ui/sessions"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
		os.WriteFile(filepath.Join(d, "console-sessions-1280.png"), get(t, dev, chromedp.CaptureScreenshot()), 0o644)
	}
	aud := newConsoleBrowser(t)
	aud.signIn(t, f, "aud1")
	if listed(aud, "") != 1 {
		t.Error("the auditor's sessions page does not list the tenant's session")
	}
	if ok, code := aud.verdictOf(t, f, sid); ok != "true" {
		t.Errorf("the auditor's view: ok %s code %s", ok, code)
	}
	// The auditor's export: logbook-verify --bundle accepts it offline,
	// and its transcript says the same; a developer gets none.
	code, z, _ := consoleGet(t, "GET", f.url+"/ui/export/"+sid, aud.cookie(t).Value, nil, "")
	if code != 200 {
		t.Fatalf("export: %d %s", code, z)
	}
	zr, err := zip.NewReader(strings.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	exp := t.TempDir()
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		os.WriteFile(filepath.Join(exp, zf.Name), b, 0o644)
	}
	vout, vcode := verifyArgs(t, "--bundle", filepath.Join(exp, sid+".bundle.json"), "--trust", filepath.Join(exp, "server.pub"), "--checkpoint-key", filepath.Join(exp, "server.vkey"))
	transcript, _ := os.ReadFile(filepath.Join(exp, "verification.txt"))
	if vcode != 0 || !strings.Contains(vout, "level=server") || !strings.Contains(string(transcript), "level=server") {
		t.Errorf("the export's bundle offline: %d %s\ntranscript: %s", vcode, vout, transcript)
	}
	aud.run(t, chromedp.Navigate(f.url+"/ui/coverage?days=30"), chromedp.WaitVisible(chromedp.CSS(`#policies`)))
	if h := aud.text(t, `main h1`); h != "Coverage of acme" || !strings.Contains(aud.text(t, `#policies`), "work") {
		t.Errorf("the auditor's coverage page: %q, policies %q", h, aud.text(t, `#policies`))
	}
	dev.run(t, chromedp.Navigate(f.url+"/ui/commits?repo=work"), chromedp.WaitVisible(chromedp.CSS(`main h1`)))
	if !strings.Contains(dev.text(t, `main`), "No session of work names a commit") {
		t.Errorf("the commits page: %q", dev.text(t, `main`))
	}
	// Commits of a range: a session of dev1's in the index names c1 and
	// c2 (the index's word, put straight in); the range pasted as
	// git rev-list prints it, c1 and c3, shows c1 with its session and
	// c3 named by none; the PR's head c2 brings its session's other
	// commit c1. A POST without the form's CSRF token is refused.
	c1, c2, c3 := strings.Repeat("a1", 20), strings.Repeat("b2", 20), strings.Repeat("c3", 20)
	if err := f.ix.Put(context.Background(), &index.Session{Tenant: "acme", ID: "console-commits-1", Developer: "dev1", Repo: "work",
		StartMS: time.Now().UnixMilli(), EndMS: time.Now().UnixMilli(), Steps: 3, Level: "server", Verdict: index.VerdictSealed, Commits: []string{c1, c2}}); err != nil {
		t.Fatal(err)
	}
	dev.run(t, chromedp.Navigate(f.url+"/ui/commits?repo=work"), chromedp.WaitVisible(chromedp.CSS(`#commit-list`)),
		chromedp.SetValue(chromedp.CSS(`#commit-list`), c1+"\n"+c3+"\n"),
		chromedp.Focus(chromedp.CSS(`form.commits button[type=submit]`)), chromedp.KeyEvent("\r"))
	for end := time.Now().Add(time.Minute); get(t, dev, chromedp.Evaluate[int](`document.readyState == 'complete' ? document.querySelectorAll('#commits tr.unnamed').length : 0`)) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the commits page never showed the pasted range")
		}
	}
	rowOf := func(b *consoleBrowser, c string) string {
		return get(t, b, chromedp.Evaluate[string](`[...document.querySelectorAll('#commits tr[data-commit="`+c+`"]')].map(r => r.innerText).join(' | ')`))
	}
	if r1, r3 := rowOf(dev, c1), rowOf(dev, c3); !strings.Contains(r1, "console-commits-1") || !strings.Contains(r1, "dev1") || !strings.Contains(r1, "server") || !strings.Contains(r3, "no session names it") || rowOf(dev, c2) != "" {
		t.Errorf("the commits of a pasted range: c1 %q, c3 %q, c2 %q", r1, r3, rowOf(dev, c2))
	}
	dev.run(t, chromedp.Navigate(f.url+"/ui/commits?repo=work&head="+c2), chromedp.WaitVisible(chromedp.CSS(`#commits`)))
	if r1, r2 := rowOf(dev, c1), rowOf(dev, c2); !strings.Contains(r1, "console-commits-1") || !strings.Contains(r2, "console-commits-1") {
		t.Errorf("the commits of a PR's head: c1 %q, c2 %q", r1, r2)
	}
	dev.run(t, chromedp.Navigate(f.url+"/ui/commits?repo=work&commits="+c3+","+c1), chromedp.WaitVisible(chromedp.CSS(`#commits`)))
	if !strings.Contains(rowOf(dev, c3), "no session names it") || !strings.Contains(rowOf(dev, c1), "console-commits-1") {
		t.Errorf("the commits in the address: %q", dev.text(t, `#commits`))
	}
	if code, _, _ := consoleGet(t, "POST", f.url+"/ui/commits", dev.cookie(t).Value, url.Values{"repo": {"work"}, "commits": {c1}}, ""); code != 403 {
		t.Errorf("a commits POST without the CSRF token: %d, want 403", code)
	}
	if code, _, _ := consoleGet(t, "GET", f.url+"/ui/commits?repo=work&commits=a1a1a1a", dev.cookie(t).Value, nil, ""); code != 400 {
		t.Errorf("an abbreviated commit id: %d, want 400", code)
	}
	if code, _, _ := consoleGet(t, "GET", f.url+"/ui/coverage", dev.cookie(t).Value, nil, ""); code != 403 {
		t.Errorf("a developer's coverage: %d, want 403", code)
	}
	// The export of a search's page holds the same bundle.
	code, z, _ = consoleGet(t, "GET", f.url+"/ui/export?developer=dev1&tool=Bash", aud.cookie(t).Value, nil, "")
	if code != 200 {
		t.Fatalf("export of a search: %d %s", code, z)
	}
	if zr, err = zip.NewReader(strings.NewReader(z), int64(len(z))); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, zf := range zr.File {
		names = append(names, zf.Name)
	}
	if strings.Join(names, " ") != sid+".bundle.json verification.txt server.pub server.vkey" {
		t.Errorf("export of a search holds %v", names)
	}
	if code, _, _ := consoleGet(t, "GET", f.url+"/ui/export/"+sid, dev.cookie(t).Value, nil, ""); code != 403 {
		t.Errorf("a developer's export: %d, want 403", code)
	}
	other := newConsoleBrowser(t)
	other.signIn(t, f, "dev3")
	if listed(other, "") != 0 {
		t.Error("another tenant's developer is listed the session")
	}
	if ok, why := other.verdictOf(t, f, sid); ok != "fetch-failed" || !strings.Contains(why, "403") {
		t.Errorf("another tenant's developer: %s %s", ok, why)
	}
	for _, c := range []struct {
		code  string
		edits []tamper.Edit
	}{
		{"SIGNATURE_INVALID", []tamper.Edit{tamper.EditSummary(1, "doctored on the server"), tamper.Relink, tamper.FixCountAndTip}},
		{"SIGNER_NOT_TRUSTED", []tamper.Edit{tamper.EditSummary(1, "doctored on the server"), tamper.Relink, tamper.FixCountAndTip, tamper.Resign(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{66}, 32)))}},
	} {
		bad, err := tamper.Apply(rec, c.edits...)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if ok, code := dev.verdictOf(t, f, sid); ok != "false" || code != c.code {
			t.Errorf("record doctored on the disk (%s): ok %s code %s", c.code, ok, code)
		}
		if get(t, dev, chromedp.Evaluate[string](`document.body.dataset.disagree || ''`)) != "true" {
			t.Errorf("record doctored on the disk (%s): the page does not mark the index's disagreement", c.code)
		}
		if d := os.Getenv("LOGBOOK_CONSOLE_SHOTS"); d != "" && c.code == "SIGNER_NOT_TRUSTED" {
			os.WriteFile(filepath.Join(d, "console-run-doctored-1280.png"), get(t, dev, chromedp.CaptureScreenshot()), 0o644)
		}
		if listed(dev, "") != 1 {
			t.Errorf("record doctored on the disk (%s): the index no longer lists it", c.code)
		}
	}
	testreport.Line(t, "console run page in Chromium: dev1's and the auditor's run accepted by the browser's own check against the server key, another tenant's refused 403; the record doctored on the server's disk shown refused SIGNATURE_INVALID (re-chained) and SIGNER_NOT_TRUSTED (re-signed)")
}
