package server

import (
	"encoding/json"
	"net/http"

	"github.com/logbook-project/logbook/internal/recorder"
)

// Error codes of the JSON errors, each with its status.
const (
	errBodyTooLarge  = "BODY_TOO_LARGE"       // 413: over the route's limit
	errBodyCut       = "BODY_INCOMPLETE"      // 400: the connection ended inside the body
	errBodyTimeout   = "BODY_TIMEOUT"         // 408: the body did not arrive in time
	errUnknownHarnes = "HARNESS_UNKNOWN"      // 400: /v1/hooks/{harness} names none we read
	errBadEvent      = "EVENT_INVALID"        // 400: ?event= is not a plain name
	errBadCwd        = "CWD_INVALID"          // 400: X-Logbook-Cwd is not one line
	errBadVerify     = "VERIFY_INPUT_INVALID" // 400: a multipart verify request that cannot be read
	errSealFailed    = "SEAL_FAILED"          // 500: recorded and checkpointed, but the seal failed
	errNoCheckpoint  = "NO_CHECKPOINT"        // 404
	errNotSealed     = "NOT_SEALED"           // 404
	errNotLogged     = "NOT_LOGGED"           // 404: no tlog-proof yet
	errNotFound      = "NOT_FOUND"            // 404: no such route
	errMethod        = "METHOD_NOT_ALLOWED"   // 405
	errUnauthorized  = "UNAUTHORIZED"         // 401
	errBusy          = "BUSY"                 // 503: no slot freed in time
	errInternal      = "INTERNAL"             // 500: a panic, logged
	// The recorder's refusals keep their names: PAYLOAD_EMPTY,
	// PAYLOAD_NOT_JSON, PAYLOAD_TOO_DEEP, PAYLOAD_NOT_OBJECT,
	// SESSION_ID_MISSING, SESSION_ID_INVALID (400) and WRITE_FAILED (500).
	// The log's routes (/v1/log/) name theirs in internal/translog/http.go:
	// LOG_PATH_INVALID 400, NOT_FOUND 404, METHOD_NOT_ALLOWED 405,
	// LOG_STORAGE_FAILED 500.
)

func status(code string) int {
	switch code {
	case errBodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case errBodyTimeout:
		return http.StatusRequestTimeout
	case errNoCheckpoint, errNotSealed, errNotFound, errNotLogged:
		return http.StatusNotFound
	case errMethod:
		return http.StatusMethodNotAllowed
	case errUnauthorized:
		return http.StatusUnauthorized
	case errBusy:
		return http.StatusServiceUnavailable
	case errSealFailed, errInternal, recorder.WriteFailed:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

type jsonError struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

// fail writes the JSON error and logs it.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code, detail string) {
	st := status(code)
	lvl := s.cfg.Log.Warn
	if st >= 500 {
		lvl = s.cfg.Log.Error
	}
	lvl("refused", "method", r.Method, "path", r.URL.Path, "status", st, "error", code, "detail", detail, "remote", r.RemoteAddr)
	writeJSON(w, st, jsonError{Error: code, Detail: detail})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
