package recorder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/digest"
)

// TestDigestCache: the second Describe of an unchanged file reads the
// cache; any change to the file (here its content and times) misses it.
func TestDigestCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	exe := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(exe, []byte("version one"), 0o755); err != nil {
		t.Fatal(err)
	}
	want, _ := digest.File(exe)
	r, err := Describe("prog", exe)
	if err != nil || r.SHA256 != want {
		t.Fatalf("first: %v %+v", err, r)
	}
	_, key, ok := cachedSum(exe)
	if !ok {
		t.Fatal("no cache entry after the first Describe")
	}
	// Prove the second read comes from the cache: plant another sum.
	dir, _ := cacheDir()
	planted := strings.Repeat("ab", 32)
	if err := os.WriteFile(filepath.Join(dir, key), []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, _ := Describe("prog", exe); r.SHA256 != planted {
		t.Fatalf("second Describe hashed again: %s", r.SHA256)
	}
	// A changed file (same size, new times) is hashed again.
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(exe, []byte("version two"), 0o755); err != nil {
		t.Fatal(err)
	}
	want2, _ := digest.File(exe)
	if r, _ := Describe("prog", exe); r.SHA256 != want2 || want2 == want {
		t.Fatalf("changed file: %s, want %s", r.SHA256, want2)
	}
	// A damaged entry is ignored.
	_, key, _ = cachedSum(exe)
	os.WriteFile(filepath.Join(dir, key), []byte("not hex"), 0o600)
	if r, _ := Describe("prog", exe); r.SHA256 != want2 {
		t.Fatalf("damaged entry used: %s", r.SHA256)
	}
}
