package web

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"sync"
)

// Cached serves the files of fsys as http.ServeFileFS does, with what
// lets a browser keep them and ask again (Cache-Control: no-cache): an
// entity tag that is the file's SHA-256, so a page opened again takes
// its 17 scripts from the browser's cache after one short question each
// (304 Not Modified), and never runs a script older than the server's.
type Cached struct {
	fsys fs.FS
	tags sync.Map // name → tag
}

// NewCached serves the files of fsys.
func NewCached(fsys fs.FS) *Cached { return &Cached{fsys: fsys} }

// types are the page's files' types, set here rather than taken from
// the system's MIME table (which may name a script differently).
var types = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".html": "text/html; charset=utf-8",
}

// Serve answers r with the file name of fsys.
func (c *Cached) Serve(w http.ResponseWriter, r *http.Request, name string) {
	if tag, ok := c.tag(name); ok {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("ETag", tag)
	}
	if t, ok := types[path.Ext(name)]; ok {
		w.Header().Set("Content-Type", t)
	}
	http.ServeFileFS(w, r, c.fsys, name)
}

func (c *Cached) tag(name string) (string, bool) {
	if t, ok := c.tags.Load(name); ok {
		return t.(string), true
	}
	b, err := fs.ReadFile(c.fsys, name)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(b)
	t := `"` + hex.EncodeToString(sum[:16]) + `"`
	c.tags.Store(name, t)
	return t, true
}
