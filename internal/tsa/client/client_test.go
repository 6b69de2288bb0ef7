package client_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/digitorus/timestamp"

	"github.com/logbook-project/logbook/internal/testkit/testpki"
	"github.com/logbook-project/logbook/internal/tsa"
	"github.com/logbook-project/logbook/internal/tsa/client"
)

var sig = bytes.Repeat([]byte{0x5a}, 64)

// authority is a local time-stamping authority: `openssl ts -reply` with a
// CA and a TSA certificate made here. No network.
type authority struct {
	dir         string
	root, other *x509.CertPool
	reply       string // the command line that answers a request on stdin
}

func newAuthority(t *testing.T) authority {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is required for this test (.ci/run installs it)")
	}
	dir := t.TempDir()
	now := time.Now()
	root := testpki.Issue(nil, testpki.Spec{Name: "openssl test root", CA: true, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)})
	other := testpki.Issue(nil, testpki.Spec{Name: "unrelated root", CA: true, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)})
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tsaCert := testpki.Issue(root, testpki.Spec{Name: "openssl test TSA", NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		EKU: []asn1.ObjectIdentifier{testpki.OIDTimeStamping}, EKUCritical: true, Key: key})
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"tsa.pem":  tsaCert.PEM(),
		"tsa.key":  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"root.pem": root.PEM(),
		"serial":   []byte("01\n"),
		"ts.cnf": []byte("[ tsa ]\ndefault_tsa = tsa1\n[ tsa1 ]\nserial = " + filepath.Join(dir, "serial") +
			"\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256\naccuracy = secs:1\ness_cert_id_alg = sha256\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := func(c *testpki.Cert) *x509.CertPool { p := x509.NewCertPool(); p.AddCert(c.Cert); return p }
	return authority{dir: dir, root: pool(root), other: pool(other),
		reply: "openssl ts -reply -config " + dir + "/ts.cnf -queryfile /dev/stdin -signer " + dir + "/tsa.pem -inkey " +
			dir + "/tsa.key -chain " + dir + "/root.pem -out /dev/stdout 2>/dev/null"}
}

// query makes a request with openssl itself, for answers to other requests.
func (a authority) query(t *testing.T, digestHex string) string {
	t.Helper()
	f := filepath.Join(a.dir, digestHex[:8]+".tsq")
	if out, err := exec.Command("openssl", "ts", "-query", "-digest", digestHex, "-sha256", "-cert", "-out", f).CombinedOutput(); err != nil {
		t.Fatalf("openssl ts -query: %v %s", err, out)
	}
	return f
}

func TestOpenSSLAuthority(t *testing.T) {
	a := newAuthority(t)
	tok, err := tsa.Stamp(sig, client.Command(a.reply, 10*time.Second), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	info, err := tsa.Verify(tok, sig, a.root)
	if err != nil {
		t.Fatalf("good token: %v", err)
	}
	if !strings.Contains(info.Authority, "openssl test TSA") || time.Since(info.Time) > time.Minute {
		t.Errorf("info %+v", info)
	}
	if _, err := tsa.Verify(tok, sig, a.other); err == nil || !strings.Contains(err.Error(), "does not chain") {
		t.Errorf("roots that do not match: %v", err)
	}
	flipped := append([]byte(nil), tok...)
	flipped[len(flipped)-2] ^= 0x01 // inside the ECDSA signature
	if _, err := tsa.Verify(flipped, sig, a.root); err == nil {
		t.Error("a flipped byte in the token was accepted")
	}
	if _, err := tsa.Verify(tok, bytes.Repeat([]byte{1}, 64), a.root); err == nil || !strings.Contains(err.Error(), "other data") {
		t.Errorf("token over other data: %v", err)
	}
}

func TestOpenSSLWrongNonce(t *testing.T) {
	a := newAuthority(t)
	// An authority that answers another request for the same data: the
	// imprint is right, the nonce is not the one sent.
	sum := tsa.Imprint(sig)
	other := a.query(t, hex.EncodeToString(sum))
	cmd := "cat >/dev/null; " + strings.Replace(a.reply, "-queryfile /dev/stdin", "-queryfile "+other, 1)
	_, err := tsa.Stamp(sig, client.Command(cmd, 10*time.Second), rand.Reader)
	if err == nil || !strings.Contains(err.Error(), "nonce") {
		t.Fatalf("wrong nonce: %v", err)
	}
}

func TestOpenSSLOtherData(t *testing.T) {
	a := newAuthority(t)
	other := a.query(t, strings.Repeat("11", 32))
	out, err := exec.Command("sh", "-c", strings.Replace(a.reply, "/dev/stdin", other, 1)).Output()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := timestamp.ParseResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tsa.Verify(ts.RawToken, sig, a.root); err == nil || !strings.Contains(err.Error(), "other data") {
		t.Fatalf("token over other data: %v", err)
	}
}

func TestHTTP(t *testing.T) {
	a := newAuthority(t)
	local := client.Command(a.reply, 10*time.Second)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/timestamp-query" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		req, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/broken":
			http.Error(w, "down", http.StatusInternalServerError)
			return
		case "/html":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
			return
		}
		resp, err := local(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		w.Write(resp)
	}))
	defer srv.Close()
	tok, err := tsa.Stamp(sig, client.HTTP(srv.URL+"/tsa", 10*time.Second), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tsa.Verify(tok, sig, a.root); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/broken", "/html"} {
		if _, err := tsa.Stamp(sig, client.HTTP(srv.URL+path, 10*time.Second), rand.Reader); err == nil {
			t.Errorf("%s: accepted", path)
		}
	}
}

func TestCommandFailures(t *testing.T) {
	for _, cmd := range []string{"exit 3", "cat >/dev/null", "cat"} {
		if _, err := tsa.Stamp(sig, client.Command(cmd, 5*time.Second), rand.Reader); err == nil {
			t.Errorf("%q: accepted", cmd)
		}
	}
	if _, err := client.Command("sleep 5", 100*time.Millisecond)([]byte("x")); err == nil {
		t.Error("a command past its timeout was not stopped")
	}
}
