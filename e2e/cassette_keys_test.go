package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/keyobjects"
)

// TestCassetteKeyObjectsInBrowser: the page (web/js/cassette.js, in
// headless Chromium) reads a cassette's embedded key in every form
// logbook-verify reads as Node's createPublicKey does (JWK, PEM and DER
// key objects: keyobjects.Cases, the cases of cmd/logbook-verify's
// TestCassetteKeyObjects), and pinned and revoked keys given as JWK or
// key-object texts, and gives the command's verdict, checks and findings
// for each.
func TestCassetteKeyObjectsInBrowser(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "samples/runback", "runback's sample cassettes")
	pemFile := filepath.Join(dir, "testkey.ed25519.pub.pem")
	pemText, err := os.ReadFile(pemFile)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := base64.StdEncoding.DecodeString("MCowBQYDK2VwAyEAg8KRsNeY0pQVF0WDAtifeAYJhf8fgW8N4EzArWiKoLU=")
	cassette := filepath.Join(dir, "sample-cassette.ed25519-testkey.json")
	raw, err := os.ReadFile(cassette)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var base map[string]any
	if err := d.Decode(&base); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	withKey := func(i int, k any) string {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		man := map[string]any{}
		for k, v := range m["manifest"].(map[string]any) {
			man[k] = v
		}
		sig := map[string]any{}
		for k, v := range man["signature"].(map[string]any) {
			sig[k] = v
		}
		sig["pubkey"] = k
		man["signature"] = sig
		m["manifest"] = man
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(tmp, fmt.Sprintf("key%d.json", i))
		writeFile(t, f, b)
		return f
	}
	b := newBrowser(t)
	page := func(path string, pubkeys, revoked []string) cassetteResult {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := json.Marshal(map[string]any{"pubkeys": pubkeys, "revoked": revoked})
		res, err := evalJS[cassetteResult](b, `runbackVerify(`+bytesExpr(data)+`, `+string(o)+`)`)
		if err != nil {
			t.Fatalf("%s: runbackVerify: %v", path, err)
		}
		return res
	}
	for i, c := range keyobjects.Cases(der, string(pemText)) {
		f := withKey(i, c.Key)
		cli := cliCassette(t, cassetteCase{"key objects", f, cassetteOpts{pubkeys: []string{pemFile}}})
		pg := page(f, []string{string(pemText)}, nil)
		if cli.Checks["signature"] != c.Sig {
			t.Errorf("%s: logbook-verify says signature %v, want %s", c.Name, cli.Checks["signature"], c.Sig)
		}
		if pg.key() != cli.key() {
			t.Errorf("%s: the page and logbook-verify disagree\n page: %s\n  cli: %s", c.Name, pg.key(), cli.key())
		}
	}
	// Pinned and revoked keys given as a bare JWK and as a key object.
	jwk := keyobjects.JWK(der)
	for i, k := range []any{jwk, map[string]any{"key": jwk, "format": "jwk"}, map[string]any{"key": string(pemText), "format": "pem"}} {
		text, _ := json.Marshal(k)
		kf := filepath.Join(tmp, fmt.Sprintf("pinned%d.jwk", i))
		writeFile(t, kf, text)
		cli := cliCassette(t, cassetteCase{"pinned", cassette, cassetteOpts{pubkeys: []string{kf}}})
		pg := page(cassette, []string{string(text)}, nil)
		if cli.Verdict != "valid" || pg.key() != cli.key() {
			t.Errorf("pinned %s:\n page: %s\n  cli: %s", text, pg.key(), cli.key())
		}
		cli = cliCassette(t, cassetteCase{"revoked", cassette, cassetteOpts{pubkeys: []string{pemFile}, revoked: []string{kf}}})
		pg = page(cassette, []string{string(pemText)}, []string{string(text)})
		if cli.Checks["signature"] != "revoked" || pg.key() != cli.key() {
			t.Errorf("revoked %s:\n page: %s\n  cli: %s", text, pg.key(), cli.key())
		}
	}
	// A JSON key that is no Ed25519 key is refused by both, named.
	for _, bad := range []string{`{"kty":"RSA","n":"AQAB","e":"AQAB"}`, `{"key":{"kty":"OKP","crv":"X448","x":"AAAA"},"format":"jwk"}`} {
		kf := filepath.Join(tmp, "bad.jwk")
		writeFile(t, kf, []byte(bad))
		var errb bytes.Buffer
		cmd := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", kf, cassette)
		cmd.Stderr = &errb
		err := cmd.Run()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "NON_ED25519_KEY") {
			t.Errorf("logbook-verify --pubkey %s: %v %s", bad, err, errb.String())
		}
		detail, err := evalJS[string](b, `runbackVerify(`+bytesExpr(raw)+`, {pubkeys: [`+jsString(bad)+`]}).then((r) => r.error ? r.error.code + ' ' + r.error.detail : r.verdict)`)
		if err != nil || !strings.HasPrefix(detail, "USAGE ") || !strings.Contains(detail, "NON_ED25519_KEY") {
			t.Errorf("page, pinned %s: %q %v", bad, detail, err)
		}
	}
	// Through the page's own key field, as a person pastes keys: a JWK
	// beside a PEM of another key pins the cassette's signer.
	other, err := os.ReadFile("../testdata/keys/fixture.key.pub")
	if err != nil {
		t.Fatal(err)
	}
	jwkText, _ := json.Marshal(jwk)
	for _, c := range []struct {
		field, want string
	}{
		{string(other), "unverified"},
		{string(other) + "\n" + string(jwkText) + "\n", "valid"},
		{`{"key":` + string(jwkText) + `,"format":"jwk"}`, "valid"},
	} {
		b.pick(t, cassette, c.field)
		got, err := evalJS[string](b, `document.getElementById('verdict').dataset.verdict`)
		if err != nil || got != c.want {
			t.Errorf("key field %q: the page shows %q (%v), want %s", c.field, got, err, c.want)
		}
	}
	b.checkQuiet(t)
}
