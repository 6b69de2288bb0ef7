package cassettecheck_test

import (
	"os"
	"testing"
)

// TestWriteBig writes the benchmark's 100,000-event cassette to
// $LOGBOOK_BIG_CASSETTE, for measuring logbook-verify itself (time, RSS).
func TestWriteBig(t *testing.T) {
	path := os.Getenv("LOGBOOK_BIG_CASSETTE")
	if path == "" {
		t.Skip("LOGBOOK_BIG_CASSETTE not set")
	}
	if err := os.WriteFile(path, bigFor(t), 0o644); err != nil {
		t.Fatal(err)
	}
}
