//go:build unix

package keyperm

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExposed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "key")
	os.WriteFile(p, []byte("k"), 0o600)
	os.Chmod(p, 0o600)
	if how, err := Exposed(p); how != "" || err != nil {
		t.Errorf("0600: %q, %v", how, err)
	}
	os.Chmod(p, 0o640)
	if how, err := Exposed(p); how != "mode -rw-r-----" || err != nil {
		t.Errorf("0640: %q, %v", how, err)
	}
	if _, err := Exposed(p + ".none"); err == nil {
		t.Error("missing file: no error")
	}
}
