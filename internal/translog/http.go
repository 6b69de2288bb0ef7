package translog

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/transparency-dev/tessera/api/layout"
)

// Handler serves the log read-only as C2SP tlog-tiles: GET checkpoint,
// tile/L/N[.p/W] and tile/entries/N[.p/W], relative to where it is
// mounted (strip the prefix first). Full tiles never change and say so.
func (l *Log) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			http.Error(w, "read-only: GET only", http.StatusMethodNotAllowed)
			return
		}
		p := strings.TrimPrefix(r.URL.Path, "/")
		var body []byte
		var err error
		immutable := false
		switch {
		case p == "checkpoint":
			body, err = l.reader.ReadCheckpoint(r.Context())
			w.Header().Set("Cache-Control", "no-cache")
		case strings.HasPrefix(p, "tile/entries/"):
			var idx uint64
			var part uint8
			idx, part, err = layout.ParseTileIndexPartial(strings.TrimPrefix(p, "tile/entries/"))
			if err == nil {
				body, err = l.reader.ReadEntryBundle(r.Context(), idx, part)
				immutable = part == 0
			}
		case strings.HasPrefix(p, "tile/"):
			level, rest, _ := strings.Cut(strings.TrimPrefix(p, "tile/"), "/")
			var lv, idx uint64
			var part uint8
			lv, idx, part, err = layout.ParseTileLevelIndexPartial(level, rest)
			if err == nil {
				body, err = l.reader.ReadTile(r.Context(), lv, idx, part)
				immutable = part == 0
			}
		default:
			http.NotFound(w, r)
			return
		}
		switch {
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, fs.ErrNotExist) || err == nil && body == nil:
			http.NotFound(w, r)
			return
		case err != nil && strings.Contains(err.Error(), "parse"):
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		case err != nil:
			http.Error(w, "log storage error", http.StatusInternalServerError)
			return
		}
		if immutable {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		if p == "checkpoint" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		w.Write(body)
	})
}

func ignoreMissing(err error) error {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
