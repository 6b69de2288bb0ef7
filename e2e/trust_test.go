package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/testpki"
)

// trustVerdict is logbook-verify --json with the policy keys.
type trustVerdict struct {
	verdict
	Timestamp *struct {
		Time      *string `json:"time"`
		Authority *string `json:"authority"`
		Trusted   bool    `json:"trusted"`
	} `json:"timestamp"`
	Identity     *string `json:"identity"`
	Attestations []struct {
		Type  string `json:"type"`
		KeyID string `json:"keyId"`
	} `json:"attestations"`
}

// verifyWith runs logbook-verify --json with args; the exit status must
// agree with the verdict (2 is returned as exit for usage errors).
func verifyWith(t *testing.T, args ...string) (trustVerdict, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "logbook-verify"), append([]string{"--json"}, args...)...)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var v trustVerdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("verify --json output %q: %v", out, err)
	}
	if code != 2 && (code == 0) != v.OK {
		t.Fatalf("exit %d disagrees with verdict %+v", code, v)
	}
	return v, code
}

// pki is a local CA and time-stamping authority made for one test:
// `openssl ts -reply` signs with an ECDSA key whose certificate has the
// critical timeStamping EKU; a separate identity CA certifies the signing
// key. No network.
type pki struct {
	dir                                  string
	tsaRoots, idRoots, otherRoots, chain string // PEM files
	trusted                              string // trusted-identities JSON
	reply                                string // --tsa-cmd
}

func newPKI(t *testing.T, work, signingKey string) pki {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is required for this test (.ci/run installs it)")
	}
	dir := filepath.Join(work, "pki")
	os.MkdirAll(dir, 0o700)
	now := time.Now()
	span := func(name string, ca bool) testpki.Spec {
		return testpki.Spec{Name: name, CA: ca, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)}
	}
	tsaRoot := testpki.Issue(nil, span("e2e TSA root", true))
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := span("e2e TSA", false)
	s.EKU, s.EKUCritical, s.Key = []asn1.ObjectIdentifier{testpki.OIDTimeStamping}, true, ecKey
	tsaCert := testpki.Issue(tsaRoot, s)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(ecKey)

	idRoot := testpki.Issue(nil, span("e2e identity root", true))
	priv, err := readPriv(t, signingKey)
	if err != nil {
		t.Fatal(err)
	}
	ls := span("e2e signer", false)
	ls.Key, ls.Emails = priv, []string{"release@example.com"}
	leaf := testpki.Issue(idRoot, ls)
	other := testpki.Issue(nil, span("e2e unrelated root", true))

	p := pki{dir: dir}
	files := map[string][]byte{
		"tsa.pem": tsaCert.PEM(), "tsa.key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"tsa-roots.pem": tsaRoot.PEM(), "id-roots.pem": idRoot.PEM(), "other-roots.pem": other.PEM(),
		"chain.pem": testpki.PEMs(leaf), "trusted.json": []byte(`["release@example.com"]`), "serial": []byte("01\n"),
		"ts.cnf": []byte("[ tsa ]\ndefault_tsa = t\n[ t ]\nserial = " + filepath.Join(dir, "serial") +
			"\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256\ness_cert_id_alg = sha256\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.tsaRoots, p.idRoots, p.otherRoots = filepath.Join(dir, "tsa-roots.pem"), filepath.Join(dir, "id-roots.pem"), filepath.Join(dir, "other-roots.pem")
	p.chain, p.trusted = filepath.Join(dir, "chain.pem"), filepath.Join(dir, "trusted.json")
	p.reply = "openssl ts -reply -config " + dir + "/ts.cnf -queryfile /dev/stdin -signer " + dir + "/tsa.pem -inkey " + dir +
		"/tsa.key -chain " + dir + "/tsa-roots.pem -out /dev/stdout 2>/dev/null"
	return p
}

func fileSHA256(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// recordShortSession records a few synthesized events through record-step.
func recordShortSession(t *testing.T, dir string) string {
	s := synthSession(t, "short")
	replay(t, s, dir, 1)
	return head(s.events[0]).Session
}

// TestSealWithTimestampAndIdentity: a session recorded by record-step is
// sealed with a certificate chain and a token from a local authority
// (openssl), and verifies with every policy check; each check refuses what
// it should.
func TestSealWithTimestampAndIdentity(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	p := newPKI(t, work, key)
	dir := filepath.Join(work, "sessions")
	id := recordShortSession(t, dir)
	rec := filepath.Join(work, "record.json")
	out := run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", key, "--out", rec,
		"--cert-chain", p.chain, "--tsa-cmd", p.reply)
	if !strings.Contains(out, "timestamped") || !strings.Contains(out, "signer identity") {
		t.Errorf("seal output %q", out)
	}
	all := []string{"--pubkey", pub, "--tsa-roots", p.tsaRoots, "--identity-roots", p.idRoots, "--trusted-identities", p.trusted}
	v, _ := verifyWith(t, append(all, rec)...)
	if !v.OK || v.Timestamp == nil || !v.Timestamp.Trusted || v.Identity == nil || *v.Identity != "release@example.com" ||
		!strings.Contains(*v.Timestamp.Authority, "e2e TSA") {
		t.Fatalf("fully checked record: %+v", v)
	}
	// session.recorder is record-step, hashed from the binary that ran.
	r := readRecord(t, rec)
	recorder, _ := r.Session["recorder"].(map[string]any)
	if recorder["name"] != "record-step" || recorder["sha256"] != fileSHA256(t, filepath.Join(bin, "record-step")) {
		t.Errorf("session.recorder %v", r.Session["recorder"])
	}
	// Without roots the token is reported, not trusted.
	if v, _ := verifyWith(t, "--pubkey", pub, rec); !v.OK || v.Timestamp == nil || v.Timestamp.Trusted || v.Timestamp.Time == nil || v.Identity != nil {
		t.Errorf("no policy: %+v", v)
	}
	if v, _ := verifyWith(t, "--tsa-roots", p.otherRoots, rec); v.code() != "TIMESTAMP_INVALID" {
		t.Errorf("other TSA roots: %+v", v)
	}
	if v, _ := verifyWith(t, "--identity-roots", p.otherRoots, "--trusted-identities", p.trusted, rec); v.code() != "IDENTITY_UNTRUSTED" {
		t.Errorf("other identity roots: %+v", v)
	}
	// A record sealed without either, under the same key.
	plain := filepath.Join(work, "plain.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", key, "--out", plain)
	if v, _ := verifyWith(t, "--tsa-roots", p.tsaRoots, plain); v.code() != "TIMESTAMP_MISSING" {
		t.Errorf("no token: %+v", v)
	}
	if v, _ := verifyWith(t, "--identity-roots", p.idRoots, "--trusted-identities", p.trusted, plain); v.code() != "IDENTITY_UNTRUSTED" {
		t.Errorf("no signerIdentity: %+v", v)
	}
}

// TestSealTSAOverHTTP: --tsa URL posts application/timestamp-query to an
// authority on the loopback interface.
func TestSealTSAOverHTTP(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, _ := newKey(t, work, "signing")
	p := newPKI(t, work, key)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") != "application/timestamp-query" {
			http.Error(w, "want a timestamp query", http.StatusUnsupportedMediaType)
			return
		}
		cmd := exec.Command("sh", "-c", p.reply)
		cmd.Stdin = r.Body
		out, err := cmd.Output()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		w.Write(out)
	}))
	defer srv.Close()
	dir := filepath.Join(work, "sessions")
	id := recordShortSession(t, dir)
	rec := filepath.Join(work, "record.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", key, "--out", rec, "--tsa", srv.URL)
	if v, _ := verifyWith(t, "--tsa-roots", p.tsaRoots, rec); !v.OK || v.Timestamp == nil || !v.Timestamp.Trusted {
		t.Fatalf("HTTP token: %+v", v)
	}
}

// TestSealTrustFailures: nothing is written when the authority fails or
// answers wrongly, or when the chain does not certify the signing key.
func TestSealTrustFailures(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, _ := newKey(t, work, "signing")
	p := newPKI(t, work, key)
	dir := filepath.Join(work, "sessions")
	id := recordShortSession(t, dir)
	otherKey, _ := newKey(t, work, "other")
	cases := []struct {
		name string
		args []string
		exit int
	}{
		{"authority fails", []string{"--tsa-cmd", "echo down >&2; exit 1"}, 1},
		{"authority answers garbage", []string{"--tsa-cmd", "cat >/dev/null; printf '0\\003\\002\\001\\000'"}, 1},
		{"replayed answer (wrong nonce)", []string{"--tsa-cmd", "cat >/dev/null; openssl ts -query -digest " + strings.Repeat("ab", 32) +
			" -sha256 -cert | " + strings.Replace(p.reply, "/dev/stdin", "/dev/stdin", 1)}, 1},
		{"--tsa and --tsa-cmd", []string{"--tsa", "http://127.0.0.1:9/", "--tsa-cmd", "true"}, 2},
		{"chain of another key", []string{"--cert-chain", p.chain, "--key", otherKey}, 2},
		{"not a chain", []string{"--cert-chain", p.trusted}, 2},
	}
	for _, c := range cases {
		out := filepath.Join(work, "r.json")
		args := append([]string{"--session", id, "--key", key, "--out", out}, c.args...)
		cmd := exec.Command(filepath.Join(bin, "logbook-seal"), args...)
		cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir)
		msg, err := cmd.CombinedOutput()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != c.exit {
			t.Errorf("%s: %v, want exit %d (%s)", c.name, err, c.exit, msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a record was written", c.name)
			os.Remove(out)
		}
	}
}

// TestAttestCLI: logbook-attest makes witness and recorder attestations
// that logbook-verify accepts, and each ATTEST code is reachable.
func TestAttestCLI(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	witnessKey, witnessPub := newKey(t, work, "witness")
	builderKey, builderPub := newKey(t, work, "builder")
	dir := filepath.Join(work, "sessions")
	id := recordShortSession(t, dir)
	rec := filepath.Join(work, "record.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", key, "--out", rec)
	r := readRecord(t, rec)
	recorder, _ := r.Session["recorder"].(map[string]any)
	version, _ := recorder["version"].(string)

	at := []string{"LOGBOOK_NOW=2026-06-01T00:00:00Z"}
	w := filepath.Join(work, "witness.dsse.json")
	run(t, at, "logbook-attest", "--type", "witness", "--key", witnessKey, "--record", rec, "--out", w, "--nonce", "n-1", "--pubkey", pub)
	good := filepath.Join(work, "recorder.dsse.json")
	run(t, at, "logbook-attest", "--type", "recorder", "--key", builderKey, "--record", rec, "--out", good,
		"--recorder-name", "record-step", "--recorder-version", version, "--recorder-binary", filepath.Join(bin, "record-step"))
	wrong := filepath.Join(work, "wrong-binary.dsse.json")
	run(t, at, "logbook-attest", "--type", "recorder", "--key", builderKey, "--record", rec, "--out", wrong,
		"--recorder-name", "record-step", "--recorder-version", version, "--recorder-binary", filepath.Join(bin, "logbook-seal"))

	// The envelope is DSSE with the logbook payload type.
	env, _ := os.ReadFile(w)
	ev, err := strictjson.Parse(env, strictjson.Options{})
	if pt, _ := ev.GetString("payloadType"); err != nil || pt != "application/vnd.logbook.attestation+json" {
		t.Fatalf("envelope %s", env)
	}

	v, _ := verifyWith(t, "--pubkey", pub, "--attestation", w, "--attestation", good, "--attestor-key", witnessPub, "--attestor-key", builderPub, rec)
	if !v.OK || len(v.Attestations) != 2 || v.Attestations[0].Type != "witness" || v.Attestations[1].Type != "recorder" {
		t.Fatalf("good attestations: %+v", v)
	}
	if v, _ := verifyWith(t, "--attestation", wrong, "--attestor-key", builderPub, rec); v.code() != "RECORDER_DIGEST_MISMATCH" {
		t.Errorf("other binary: %+v", v)
	}
	if v, _ := verifyWith(t, "--attestation", w, "--attestor-key", builderPub, rec); v.code() != "ATTEST_INVALID" {
		t.Errorf("unpinned witness: %+v", v)
	}
	// A record re-signed by another key: the witness's keyId no longer matches
	// (and neither does its recordId, which is judged first).
	other := filepath.Join(work, "other.json")
	otherKey, _ := newKey(t, work, "other")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", otherKey, "--out", other)
	if v, _ := verifyWith(t, "--attestation", w, "--attestor-key", witnessPub, other); v.code() != "ATTEST_INVALID" {
		t.Errorf("witness of another record: %+v", v)
	}

	// Refusals of logbook-attest itself.
	for _, c := range []struct {
		args []string
		exit int
	}{
		{[]string{"--type", "observer", "--key", witnessKey, "--record", rec, "--out", filepath.Join(work, "x")}, 2},
		{[]string{"--type", "recorder", "--key", witnessKey, "--record", rec, "--out", filepath.Join(work, "x"), "--recorder-name", "r"}, 2},
		{[]string{"--type", "witness", "--key", witnessKey, "--record", rec, "--out", filepath.Join(work, "x"), "--pubkey", witnessPub}, 1},
	} {
		cmd := exec.Command(filepath.Join(bin, "logbook-attest"), c.args...)
		_, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != c.exit {
			t.Errorf("logbook-attest %v: %v, want exit %d", c.args, err, c.exit)
		}
	}
}

// TestVerifyPolicyUsage: policy flags that cannot be honoured are usage
// errors (exit 2), reported as JSON too.
func TestVerifyPolicyUsage(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	weak := filepath.Join(work, "weak.pub")
	// The SPKI of the identity point, a small-order key.
	spki, _ := hex.DecodeString("302a300506032b6570032100" + "01" + strings.Repeat("00", 31))
	os.WriteFile(weak, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}), 0o644)
	rec := "../testdata/records/good_basic.json"
	for _, args := range [][]string{
		{"--identity-roots", "../testdata/pki/identity-roots.pem", rec},
		{"--trusted-identities", "../testdata/pki/trusted-identities.json", rec},
		{"--attestation", "../testdata/records/policy/attestations/witness.dsse.json", rec},
		{"--attestation", "../testdata/records/policy/attestations/witness.dsse.json", "--attestor-key", weak, rec},
		{"--tsa-roots", "../testdata/pki/trusted-identities.json", rec},
		{"--tsa-roots", filepath.Join(work, "missing.pem"), rec},
	} {
		if v, code := verifyWith(t, args...); code != 2 || v.OK || v.Code != nil {
			t.Errorf("%v: exit %d %+v", args, code, v)
		}
	}
}

// TestPolicyFixturesCLI: every policy fixture gets the same verdict from
// the command line, with its options as flags, as from the library.
func TestPolicyFixturesCLI(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../testdata/records/policy/*.json")
	if len(files) < 20 {
		t.Fatalf("%d policy fixtures", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		args := []string{}
		opts, err := os.ReadFile(filepath.Join("../testdata/records/policy/options", name))
		if err == nil {
			var o map[string]any
			if err := json.Unmarshal(opts, &o); err != nil {
				t.Fatal(err)
			}
			flagOf := map[string]string{"pubkey": "--pubkey", "tsaRoots": "--tsa-roots", "identityRoots": "--identity-roots",
				"trustedIdentities": "--trusted-identities", "attestation": "--attestation", "attestorKey": "--attestor-key", "revoked": "--revoked"}
			for k, v := range o {
				switch v := v.(type) {
				case string:
					args = append(args, flagOf[k], filepath.Join("../testdata", v))
				case []any:
					for _, p := range v {
						args = append(args, flagOf[k], filepath.Join("../testdata", p.(string)))
					}
				}
			}
			if _, ok := o["pubkey"]; !ok {
				args = append(args, "--pubkey", "../testdata/keys/fixture.key.pub")
			}
		} else {
			args = append(args, "--pubkey", "../testdata/keys/fixture.key.pub")
		}
		v, _ := verifyWith(t, append(args, f)...)
		want := ""
		if strings.HasPrefix(name, "fail_") {
			rest := strings.TrimPrefix(name, "fail_")
			for _, c := range []string{"KEY_REVOKED", "IDENTITY_KEY_MISMATCH", "IDENTITY_UNTRUSTED", "IDENTITY_NOT_ALLOWED", "TIMESTAMP_MISSING",
				"TIMESTAMP_INVALID", "ATTEST_KEYID_MISMATCH", "RECORDER_DIGEST_MISMATCH", "ATTEST_INVALID"} {
				if strings.HasPrefix(rest, c+"_") {
					want = c
				}
			}
		}
		if v.code() != want {
			t.Errorf("%s: got %q (%s), want %q", name, v.code(), v.Detail, want)
		}
	}
}
