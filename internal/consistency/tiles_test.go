package consistency

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
)

// The tiles come from the log under audit: a body or a file that never
// ends is refused once it is longer than a tile, not read to its end.
func TestTilesBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 1<<16)
		for i := 0; i < 1<<14; i++ { // 1 GiB, unless the client stops
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/")
	f, _ := client.NewHTTPFetcher(u, tileClient)
	if _, err := f.ReadTile(context.Background(), 0, 0, 0); err == nil || !strings.Contains(err.Error(), "more than 8192 bytes") {
		t.Fatalf("an endless tile over HTTP: %v", err)
	}

	dir := t.TempDir()
	p := filepath.Join(dir, layout.TilePath(0, 0, 0))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, make([]byte, maxTile+1), 0o644)
	if _, err := fileTiles(dir)(context.Background(), 0, 0, 0); err == nil || !strings.Contains(err.Error(), "not a tile") {
		t.Fatalf("an oversized tile file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		os.Remove(p)
		if err := os.Symlink("/dev/zero", p); err == nil {
			if _, err := fileTiles(dir)(context.Background(), 0, 0, 0); err == nil || !strings.Contains(err.Error(), "not a tile") {
				t.Fatalf("a tile linked to /dev/zero: %v", err)
			}
		}
	}
	// A sound tile is read as before.
	os.Remove(p)
	os.WriteFile(p, make([]byte, maxTile), 0o644)
	if b, err := fileTiles(dir)(context.Background(), 0, 0, 0); err != nil || len(b) != maxTile {
		t.Fatalf("a full tile: %d bytes, %v", len(b), err)
	}
}
