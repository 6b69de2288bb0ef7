package translog

import (
	"encoding/json"
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
			httpError(w, http.StatusMethodNotAllowed, ErrMethod, r.Method+": the log is read-only, GET only")
			return
		}
		read, partial, err := l.resource(strings.TrimPrefix(r.URL.Path, "/"))
		if err != nil {
			httpError(w, http.StatusBadRequest, ErrTilePath, "not a tlog-tiles path: "+err.Error())
			return
		}
		if read == nil {
			httpError(w, http.StatusNotFound, ErrNotFound, "the log serves checkpoint, tile/L/N[.p/W] and tile/entries/N[.p/W]")
			return
		}
		body, err := read(r)
		switch {
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, fs.ErrNotExist) || err == nil && body == nil:
			httpError(w, http.StatusNotFound, ErrNotFound, "no such tile or checkpoint in the log yet")
			return
		case err != nil:
			httpError(w, http.StatusInternalServerError, ErrStorage, "log storage error")
			return
		}
		switch {
		case r.URL.Path == "/checkpoint":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
		case partial == 0:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		w.Write(body)
	})
}

// The log's HTTP errors, named as logbook-server names its own: a JSON
// object {"error": CODE, "detail": TEXT} with the code's status.
const (
	ErrNotFound = "NOT_FOUND"          // 404: no such route, tile or checkpoint (yet)
	ErrTilePath = "LOG_PATH_INVALID"   // 400: a tile path that does not parse
	ErrMethod   = "METHOD_NOT_ALLOWED" // 405: the log is read-only
	ErrStorage  = "LOG_STORAGE_FAILED" // 500: the storage could not be read
)

func httpError(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Del("Cache-Control")
	w.WriteHeader(status)
	b, _ := json.Marshal(struct {
		Error  string `json:"error"`
		Detail string `json:"detail"`
	}{code, detail})
	w.Write(append(b, '\n'))
}

// resource maps a tlog-tiles path to its reader: nil for no such route,
// an error for a tile path that does not parse.
func (l *Log) resource(p string) (func(*http.Request) ([]byte, error), uint8, error) {
	switch {
	case p == "checkpoint":
		return func(r *http.Request) ([]byte, error) { return l.reader.ReadCheckpoint(r.Context()) }, 1, nil
	case strings.HasPrefix(p, "tile/entries/"):
		idx, part, err := layout.ParseTileIndexPartial(strings.TrimPrefix(p, "tile/entries/"))
		if err != nil {
			return nil, 0, err
		}
		return func(r *http.Request) ([]byte, error) { return l.reader.ReadEntryBundle(r.Context(), idx, part) }, part, nil
	case strings.HasPrefix(p, "tile/"):
		level, rest, _ := strings.Cut(strings.TrimPrefix(p, "tile/"), "/")
		lv, idx, part, err := layout.ParseTileLevelIndexPartial(level, rest)
		if err != nil {
			return nil, 0, err
		}
		return func(r *http.Request) ([]byte, error) { return l.reader.ReadTile(r.Context(), lv, idx, part) }, part, nil
	}
	return nil, 0, nil
}

func ignoreMissing(err error) error {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
