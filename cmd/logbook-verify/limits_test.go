package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// TestInputLimits: every file logbook-verify reads has a size limit. A file
// over it, or a device such as /dev/zero, is an I/O error (exit 2) that
// names the file, instead of being read until memory runs out.
func TestInputLimits(t *testing.T) {
	dir := t.TempDir()
	oldMax := maxRecord
	maxRecord = 4 << 10
	t.Cleanup(func() { maxRecord = oldMax })
	big := writeTemp(t, dir, "big", bytes.Repeat([]byte("A"), 2<<20))      // over every small limit
	rec := writeTemp(t, dir, "rec.json", bytes.Repeat([]byte(" "), 8<<10)) // over maxRecord
	key := writeTemp(t, dir, "key.pem", bytes.Repeat([]byte("A"), readlimit.Key+1))
	// --trust is read once the bundle parses: its reader directly.
	if _, err := keys.ReadPublicSet("--trust", []string{key}); err == nil || !strings.Contains(err.Error(), "64 KiB limit") {
		t.Errorf("--trust over its limit: %v", err)
	}
	for _, tc := range []struct {
		name string
		args []string
		file string
	}{
		{"record", []string{rec}, rec},
		{"record-json", []string{"--json", rec}, rec},
		{"bundle", []string{"--bundle", rec, "--trust", key}, rec},
		{"evidence-record", []string{rec, "--evidence", big}, rec},
		{"pubkey", []string{"--pubkey", key, rec}, key},
		{"pubkey-dev", []string{"--pubkey", "/dev/zero", rec}, "/dev/zero"},
		{"tsa-roots", []string{"--tsa-roots", big, rec}, big},
		{"tsa-roots-dev", []string{"--tsa-roots", "/dev/zero", rec}, "/dev/zero"},
		{"identity-roots", []string{"--identity-roots", big, "--trusted-identities", big, rec}, big},
		{"trusted-identities-dev", []string{"--identity-roots", "/dev/zero", "--trusted-identities", "/dev/zero", rec}, "/dev/zero"},
		{"attestation", []string{"--attestor-key", key, "--attestation", big, rec}, key},
		{"attestation-dev", []string{"--attestor-key", "/dev/zero", "--attestation", "/dev/zero", rec}, "/dev/zero"},
		{"log-policy", []string{"--log-policy", big, rec}, big},
		{"log-policy-dev", []string{"--log-policy", "/dev/zero", rec}, "/dev/zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasPrefix(tc.file, "/dev/") {
				if _, err := os.Stat(tc.file); err != nil {
					t.Skip(err)
				}
			}
			code, out := runVerify(t, tc.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2:\n%s", code, out)
			}
			if !strings.Contains(out, tc.file) || !(strings.Contains(out, "limit") || strings.Contains(out, "not a regular file")) {
				t.Errorf("the error names neither %s nor its limit:\n%s", tc.file, out)
			}
		})
	}
}
