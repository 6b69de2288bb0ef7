package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

// TestConvertFileNotRegular: a device that never ends (/dev/zero) or a FIFO
// nobody writes to is refused unread, not read until memory runs out or
// waited on.
func TestConvertFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "t.jsonl")
	if err := ostest.Mkfifo(fifo); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, p := range []string{"/dev/zero", fifo} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		_, _, err := ConvertFile(p)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ConvertFile(%s) = %v, want not a regular file", p, err)
		}
	}
}
