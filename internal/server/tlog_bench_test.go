package server_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/translog"
)

// BenchmarkAppendLogged is BenchmarkAppend with every checkpoint also
// queued as a leaf of a POSIX transparency log (no witness): side by side
// they give the log's cost per hook event.
func BenchmarkAppendLogged(b *testing.B) {
	var tl *translog.Log
	f := newServer(b, func(c *server.Config, _ *http.Server) {
		var err error
		tl, err = translog.Open(context.Background(), translog.Config{Dir: filepath.Join(b.TempDir(), "log"), Origin: "logbook.test/log", Key: c.Key})
		if err != nil {
			b.Fatal(err)
		}
		c.TLog = tl
	})
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
	b.StopTimer()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tl.Close(ctx)
}
