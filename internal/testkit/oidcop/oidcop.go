// Package oidcop starts a real OpenID provider for tests, as a process of
// its own (cmd/oidcop: zitadel/oidc's certified op package), and gets
// tokens from it the way clients do: the client-credentials grant (a CI
// job's token, or a person's bearer token without a browser) and the
// authorization code flow with PKCE through its login form (what the
// console's browser test fills in by hand).
//
// Its people are Users (password Password); their tokens are RS256 JWTs
// whose claims "tenant", "roles" and "groups" say where they belong. A
// second Start is a second issuer with keys of its own: the wrong issuer
// of a negative test.
package oidcop

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Provider is a running provider.
type Provider struct {
	// Issuer is its issuer URL, http://127.0.0.1:PORT: discovery is at
	// Issuer + "/.well-known/openid-configuration".
	Issuer string
	// TokenURL, AuthURL and KeysURL are its token, authorization and
	// JWKS endpoints, from its discovery document.
	TokenURL, AuthURL, KeysURL string
}

// Start builds cmd/oidcop (go's build cache makes every build after the
// first a link), starts it on a free port of 127.0.0.1 and stops it when
// the test ends.
func Start(t testing.TB) *Provider {
	t.Helper()
	root, err := repoDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "oidcop")
	build := exec.Command("go", "build", "-o", bin, "./internal/testkit/oidcop/cmd/oidcop")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building oidcop: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("oidcop did not say its issuer: %v", err)
	}
	p := &Provider{Issuer: strings.TrimSpace(line)}
	var disc struct {
		Token string `json:"token_endpoint"`
		Auth  string `json:"authorization_endpoint"`
		Keys  string `json:"jwks_uri"`
	}
	if err := getJSON(p.Issuer+"/.well-known/openid-configuration", &disc); err != nil {
		t.Fatalf("oidcop discovery: %v (stderr: %s)", err, stderr.String())
	}
	p.TokenURL, p.AuthURL, p.KeysURL = disc.Token, disc.Auth, disc.Keys
	return p
}

// Token is an access token (an RS256 JWT) for user through the
// client-credentials grant: subject user, the user's claims, audience
// Audience, or the audiences named (a negative test's wrong audience).
func (p *Provider) Token(t testing.TB, user string, audience ...string) string {
	t.Helper()
	scope := "openid"
	for _, a := range audience {
		scope += " aud:" + a
	}
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}
	tok, err := p.token(form, user, Password)
	if err != nil {
		t.Fatalf("oidcop token for %s: %v", user, err)
	}
	return tok.Access
}

// IDToken is an ID token (an RS256 JWT) for user, audience ConsoleClient,
// through the authorization code flow with PKCE: the login form filled
// in as a browser would.
func (p *Provider) IDToken(t testing.TB, user string) string {
	t.Helper()
	tok, err := p.codeFlow(user)
	if err != nil {
		t.Fatalf("oidcop code flow for %s: %v", user, err)
	}
	return tok
}

type tokenResponse struct {
	Access string `json:"access_token"`
	ID     string `json:"id_token"`
}

func (p *Provider) token(form url.Values, client, secret string) (tokenResponse, error) {
	var tok tokenResponse
	req, err := http.NewRequest("POST", p.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return tok, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(client), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return tok, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return tok, fmt.Errorf("%s: %s", resp.Status, body)
	}
	return tok, json.Unmarshal(body, &tok)
}

// redirectURI is where the code flow's answer goes: nothing listens
// there, the client stops at the redirect and reads the code from it.
const redirectURI = "http://127.0.0.1:9/callback"

func (p *Provider) codeFlow(user string) (string, error) {
	verifier := random()
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	jar, _ := cookiejar.New(nil)
	issuer, _ := url.Parse(p.Issuer)
	c := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Host != issuer.Host {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	q := url.Values{
		"client_id": {ConsoleClient}, "redirect_uri": {redirectURI},
		"response_type": {"code"}, "scope": {"openid profile email"},
		"state": {"s"}, "nonce": {random()},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}
	resp, err := c.Get(p.AuthURL + "?" + q.Encode())
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	id := resp.Request.URL.Query().Get("authRequestID")
	if id == "" {
		return "", fmt.Errorf("no login form: ended at %s (%s)", resp.Request.URL, resp.Status)
	}
	resp, err = c.PostForm(p.Issuer+"/login/username", url.Values{
		"id": {id}, "username": {user}, "password": {Password},
	})
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		return "", fmt.Errorf("login refused: %s, Location %q", resp.Status, resp.Header.Get("Location"))
	}
	tok, err := p.token(url.Values{
		"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {redirectURI}, "code_verifier": {verifier},
	}, ConsoleClient, ConsoleSecret)
	if err != nil {
		return "", err
	}
	return tok.ID, nil
}

func getJSON(u string, v any) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func random() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// repoDir is the directory of go.mod above the test's working directory.
func repoDir() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", os.ErrNotExist
		}
		d = parent
	}
}
