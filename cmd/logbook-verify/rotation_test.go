package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/rotation"
)

// TestKeyRotationsFlag: with --key-rotations, a record signed by the key
// the pinned key handed over to is accepted; without, it is not; a chain
// from a key nobody trusts, or a note that does not open, is refused.
func TestKeyRotationsFlag(t *testing.T) {
	t.Parallel()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("../../testdata/keys", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	oldKey, err := keys.ParsePrivateKeyPEM(read("other.key"))
	if err != nil {
		t.Fatal(err)
	}
	newKey, err := keys.ParsePrivateKeyPEM(read("fixture.key")) // good_basic.json's signer
	if err != nil {
		t.Fatal(err)
	}
	r, err := rotation.Sign("logbook.test", oldKey, newKey, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rots := filepath.Join(dir, "key-rotations")
	os.WriteFile(rots, append(r.Note, '\n'), 0o644)
	rec := "../../testdata/records/good_basic.json"
	oldPub := "../../testdata/keys/other.key.pub"
	verify := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := verify("--pubkey", oldPub, rec); code != 1 || !strings.Contains(out, "SIGNER_NOT_TRUSTED") {
		t.Fatalf("without the rotations: %d %s", code, out)
	}
	if code, out := verify("--pubkey", oldPub, "--key-rotations", rots, rec); code != 0 || !strings.HasPrefix(out, "OK") {
		t.Fatalf("with the rotations: %d %s", code, out)
	}
	// A chain that starts from a key not pinned is not followed.
	if code, out := verify("--pubkey", "../../testdata/keys/builder.key.pub", "--key-rotations", rots, rec); code != 2 || !strings.Contains(out, "none of the trusted keys") {
		t.Fatalf("chain from an untrusted key: %d %s", code, out)
	}
	// An edited note does not open.
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, bytes.Replace(r.Note, []byte("at 2026"), []byte("at 2025"), 1), 0o644)
	if code, out := verify("--pubkey", oldPub, "--key-rotations", bad, rec); code != 2 || !strings.Contains(out, "key rotation 1") {
		t.Fatalf("edited note: %d %s", code, out)
	}
	if code, out := verify("--key-rotations", rots, rec); code != 2 || !strings.Contains(out, "needs a --pubkey or --checkpoint-key") {
		t.Fatalf("nothing to follow from: %d %s", code, out)
	}
}
