package seal

import (
	"errors"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record"
)

// TestRecorderCertificatesTimestamp: the header's recorder becomes
// session.recorder; certificates and the timestamp callback reach the
// record; a failing timestamp leaves nothing sealed.
func TestRecorderCertificatesTimestamp(t *testing.T) {
	dir := t.TempDir()
	j, err := journalfile.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	rec := &format.Recorder{Name: "record-step", Version: "v9", SHA256: strings.Repeat("a1", 32)}
	if _, err := j.Append(journalfile.Header{Session: "s", Cwd: "/w", Harness: "claude-code", Recorder: rec},
		[]chain.Step{toolStep("2026-01-01T00:00:00Z", "PostToolUse", "a")}); err != nil {
		t.Fatal(err)
	}
	var stamped []byte
	cert := []byte{0x30, 0x03, 0x02, 0x01, 0x07} // DER-shaped; what it says is judged only by identity checks
	res, err := Seal(j, key(), Options{Now: "2026-01-02T00:00:00Z", Certificates: [][]byte{cert},
		Timestamp: func(sig []byte) ([]byte, error) { stamped = sig; return []byte{0x30, 0x03, 0x02, 0x01, 0x01}, nil }})
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	v := record.Verify(res.Record, record.Options{})
	if !v.OK || v.Facts.Recorder == nil || *v.Facts.Recorder != (format.Recorder{Name: rec.Name, Version: rec.Version, SHA256: rec.SHA256}) {
		t.Fatalf("%+v", v)
	}
	if len(v.Facts.Certificates) != 1 || string(v.Facts.Certificates[0]) != string(cert) || string(v.Facts.Signature) != string(stamped) ||
		len(v.Facts.RFC3161) != 5 {
		t.Fatalf("facts %+v", v.Facts)
	}
	j, _ = journalfile.Open(dir, "s")
	defer j.Close()
	if _, err := Seal(j, key(), Options{Now: "2026-01-02T00:00:00Z",
		Timestamp: func([]byte) ([]byte, error) { return nil, errors.New("authority down") }}); err == nil || !strings.Contains(err.Error(), "authority down") {
		t.Fatalf("failing timestamp: %v", err)
	}
}
