package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSSLKeys: a key from `openssl genpkey -algorithm ed25519` signs,
// and its `openssl pkey -pubout` public key pins; keys logbook makes are
// read by openssl. .ci/run installs openssl, so this always runs in CI.
func TestOpenSSLKeys(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is required for this test (.ci/run installs it)")
	}
	work := t.TempDir()
	key, pub := filepath.Join(work, "ossl.key"), filepath.Join(work, "ossl.pub")
	for _, args := range [][]string{
		{"genpkey", "-algorithm", "ed25519", "-out", key},
		{"pkey", "-in", key, "-pubout", "-out", pub},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v %s", args, err, out)
		}
	}
	dir := filepath.Join(work, "s")
	recordStep(t, dir, "2026-01-01T00:00:00Z", []byte(`{"session_id":"o","hook_event_name":"SessionStart","cwd":"/w"}`))
	rec := filepath.Join(work, "r.json")
	pemText, _ := os.ReadFile(key)
	// The key as PEM text in the environment, as a CI secret would hold it.
	run(t, []string{"LOGBOOK_SIGNING_KEY=" + string(pemText)}, "logbook-seal", "--dir", dir, "--session", "o", "--out", rec)
	if v := verify(t, rec, pub); !v.OK {
		t.Fatalf("openssl key: %+v", v)
	}
	mine, _ := newKey(t, work, "mine")
	out, err := exec.Command("openssl", "pkey", "-in", mine, "-noout", "-text").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ED25519 Private-Key") {
		t.Fatalf("openssl cannot read logbook's key: %v %s", err, out)
	}
	if st, _ := os.Stat(mine); st.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v, want 0600", st.Mode().Perm())
	}
}
