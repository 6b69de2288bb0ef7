package server_test

import (
	"bytes"
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/server"
)

// BenchmarkAppend: one hook event through the handler, in process (no
// network): parse, redact, append under the lock, sign the checkpoint,
// append it. The checkpoint's share is BenchmarkSign's figure over this
// one. fsync=group waits for its own fsync each time (one client: no
// batch to share), fsync=off does not.
func BenchmarkAppend(b *testing.B) {
	for _, mode := range []string{server.FsyncOff, server.FsyncGroup} {
		b.Run("fsync="+mode, func(b *testing.B) {
			f := newServer(b, func(c *server.Config, _ *http.Server) { c.Fsync = mode })
			h := f.srv.Handler()
			body := event("bench", "PreToolUse", 1)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := httptest.NewRequest("POST", "/v1/hooks/claude-code", bytes.NewReader(body))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}

// BenchmarkSign: signing one checkpoint note.
func BenchmarkSign(b *testing.B) {
	s, _ := checkpoint.NewSigner("logbook.test", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)))
	c := checkpoint.Checkpoint{Session: "bench", Size: 1000, Tip: strings.Repeat("a", 64), Time: "2026-12-01T00:00:00.123456789Z", Redact: strings.Repeat("b", 64)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.Size = int64(i + 1)
		if _, err := s.Sign(c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyCheckpoint: opening one note under a pinned key.
func BenchmarkVerifyCheckpoint(b *testing.B) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	s, _ := checkpoint.NewSigner("logbook.test", priv)
	note, _ := s.Sign(checkpoint.Checkpoint{Session: "bench", Size: 1000, Tip: strings.Repeat("a", 64), Time: "2026-12-01T00:00:00Z", Redact: strings.Repeat("b", 64)})
	keys := []checkpoint.Key{{Pub: priv.Public().(ed25519.PublicKey)}}
	for i := 0; i < b.N; i++ {
		if _, err := checkpoint.Open(note, keys, nil); err != nil {
			b.Fatal(err)
		}
	}
}
