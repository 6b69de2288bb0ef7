package e2e

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tlsCert issues a certificate (signed by ca, or self-signed when ca is
// nil) and returns it with its key.
func tlsCert(t *testing.T, name string, ca *tls.Certificate, isCA, server bool) tls.Certificate {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: isCA,
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	} else if !isCA {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	parent, signer := tmpl, any(key)
	if ca != nil {
		parent, signer = ca.Leaf, ca.PrivateKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

func writePEM(t *testing.T, path string, c tls.Certificate) {
	keyDER, _ := x509.MarshalECPrivateKey(c.PrivateKey.(*ecdsa.PrivateKey))
	os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), 0o644)
	os.WriteFile(path+".key", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// TestServerMTLS: with --client-ca the server may listen on a
// non-loopback address without a token; a client without a certificate
// from that CA is turned away in the handshake, one with it records.
func TestServerMTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := tlsCert(t, "logbook test CA", nil, true, false)
	srvCert := tlsCert(t, "127.0.0.1", &ca, false, true)
	client := tlsCert(t, "agent host", &ca, false, false)
	other := tlsCert(t, "stranger", nil, false, false)
	writePEM(t, filepath.Join(dir, "ca.pem"), ca)
	writePEM(t, filepath.Join(dir, "server.pem"), srvCert)
	key := newServerKey(t, dir)
	port := strings.Split(freePort(t), ":")[1]
	cmd := exec.Command(filepath.Join(bin, "logbook-server"), "--listen", "0.0.0.0:"+port, "--data", filepath.Join(dir, "data"), "--key", key,
		"--tls-cert", filepath.Join(dir, "server.pem"), "--tls-key", filepath.Join(dir, "server.pem.key"), "--client-ca", filepath.Join(dir, "ca.pem"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	roots := x509.NewCertPool()
	roots.AddCert(ca.Leaf)
	do := func(cert *tls.Certificate) (int, error) {
		tc := &tls.Config{RootCAs: roots}
		if cert != nil {
			tc.Certificates = []tls.Certificate{*cert}
		}
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 5 * time.Second}
		return postEvent(c, "https://127.0.0.1:"+port, toolEvent("mtls", 0))
	}
	var code int
	var err error
	for i := 0; i < 100; i++ {
		if code, err = do(&client); err == nil {
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
	if err != nil || code != 200 {
		t.Fatalf("with the client certificate: %d %v\n%s", code, err, stderr.String())
	}
	if _, err := do(nil); err == nil {
		t.Error("a client without a certificate was served")
	}
	if _, err := do(&other); err == nil {
		t.Error("a client with a certificate from another CA was served")
	}
	if !strings.Contains(stderr.String(), `"mtls":true`) {
		t.Errorf("log: %s", stderr.String())
	}
}
