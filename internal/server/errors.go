package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

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
	errBadUnsent     = "UNSENT_INVALID"       // 400: X-Logbook-Unsent is not a count
	errBadNonce      = "NONCE_INVALID"        // 400: X-Logbook-Nonce is not 32 lowercase hex digits
	errBadSeq        = "SEQ_INVALID"          // 400: X-Logbook-Seq is not a number
	errDiskLow       = "DISK_LOW"             // 507: a new session refused, the data's file system under --min-free
	errBadVerify     = "VERIFY_INPUT_INVALID" // 400: a multipart verify request that cannot be read
	errSealFailed    = "SEAL_FAILED"          // 500: recorded and checkpointed, but the seal failed
	errSyncFailed    = "SYNC_FAILED"          // 500: written, but the fsync before the answer failed
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
	// SESSION_ID_MISSING, SESSION_ID_INVALID, EVENT_RESERVED (400) and
	// WRITE_FAILED (500).
	// The log's routes (/v1/log/) name theirs in internal/translog/http.go:
	// LOG_PATH_INVALID 400, NOT_FOUND 404, METHOD_NOT_ALLOWED 405,
	// LOG_STORAGE_FAILED 500.
)

func status(code string) int {
	if st, ok := approvalStatus[code]; ok {
		return st
	}
	if st, ok := fleetStatus[code]; ok {
		return st
	}
	switch code {
	case errBodyTooLarge:
		return http.StatusRequestEntityTooLarge
	case errBodyTimeout:
		return http.StatusRequestTimeout
	case errNoCheckpoint, errNotSealed, errNotFound, errNotLogged, errNoIndex, errNotIndexed:
		return http.StatusNotFound
	case errForbidden:
		return http.StatusForbidden
	case errHeld, errNoPolicy:
		return http.StatusConflict
	case errIndex:
		return http.StatusInternalServerError
	case errMethod:
		return http.StatusMethodNotAllowed
	case errUnauthorized:
		return http.StatusUnauthorized
	case errBusy:
		return http.StatusServiceUnavailable
	case errDiskLow:
		return http.StatusInsufficientStorage
	case errSealFailed, errSyncFailed, errInternal, recorder.WriteFailed:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

type jsonError struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

// fail writes the JSON error and logs it. The client gets the detail as
// is; the log gets it only when the refusal's detail quotes nothing the
// client sent (plainDetail), else its length and a SHA-256 prefix: a
// secret sent as a session id, a harness name or a path must not end up
// in the server's log. The path is logged as the route's pattern.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code, detail string) {
	st := status(code)
	lvl := s.cfg.Log.Warn
	if st >= 500 {
		lvl = s.cfg.Log.Error
	}
	logged := detail
	if st < 500 && !plainDetail[code] {
		logged = fingerprint(detail)
	}
	lvl("refused", "method", fingerprintUnless(r.Method, knownMethod[r.Method]), "route", route(r), "status", st,
		"error", code, "detail", logged, "remote", r.RemoteAddr)
	writeJSON(w, st, jsonError{Error: code, Detail: detail})
}

// plainDetail names the refusals whose detail is the server's own text
// (numbers, and fixed sentences): logged verbatim.
var plainDetail = map[string]bool{
	errBodyTooLarge: true, errBodyCut: true, errBodyTimeout: true, errBadEvent: true,
	errBadCwd: true, errUnauthorized: true, errBusy: true,
}

var knownMethod = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true,
	"DELETE": true, "OPTIONS": true, "CONNECT": true, "TRACE": true}

// route is what the log says of a request's path: the pattern it matched,
// or the path's fingerprint when it matched only the catch-all.
func route(r *http.Request) string {
	if r.Pattern != "" && r.Pattern != "/" {
		return r.Pattern
	}
	return fingerprintUnless(r.URL.Path, r.URL.Path == "/")
}

// fingerprint stands for a string the client chose, in a log line: its
// length and the first 12 hex digits of its SHA-256, enough to match it
// with what the client reports, useless to read a secret from.
func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("redacted: %d bytes, sha256 %x", len(s), sum[:6])
}

func fingerprintUnless(s string, plain bool) string {
	if plain {
		return s
	}
	return fingerprint(s)
}

// writeJSON answers v as JSON. The encoding goes to a pooled buffer
// first (json.Encoder holds the whole value in memory either way), so
// that the answer carries its Content-Length and leaves in one write:
// an answer streamed past net/http's 2 KiB buffer goes chunked, in
// several writes, each a wakeup of the client.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := jsonBufs.Get().(*bytes.Buffer)
	defer putJSONBuf(buf)
	if a, ok := v.(jsonAppender); ok {
		buf.Write(append(a.AppendJSON(buf.AvailableBuffer()), '\n'))
	} else if err := encodeJSON(buf, v); err != nil {
		// Not reached with the server's own answer types; say so
		// rather than answer an empty 200.
		buf.Reset()
		status = http.StatusInternalServerError
		_ = encodeJSON(buf, jsonError{Error: errInternal, Detail: "the answer could not be written as JSON"})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonAppender is an answer that writes its own JSON, byte for byte
// what encoding/json would write (SearchAnswer: a search page, fixed
// fields, no reflection).
type jsonAppender interface{ AppendJSON([]byte) []byte }

var jsonBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putJSONBuf keeps buffers up to 64 KiB: a rare large answer's buffer
// goes to the collector instead of staying pooled.
func putJSONBuf(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		b.Reset()
		jsonBufs.Put(b)
	}
}
