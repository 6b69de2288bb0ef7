package server_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/translog"
)

// With a token, the log's tiles are no exception: they name every
// session, its size and its tip (docs/server.md: every route but
// /healthz and the page needs the token).
func TestTokenCoversLog(t *testing.T) {
	var tl *translog.Log
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		c.Token = "s3cret"
		var err error
		tl, err = translog.Open(context.Background(), translog.Config{Driver: "posix", Dir: filepath.Join(t.TempDir(), "log"),
			Origin: "logbook.test/log", Key: c.Key})
		if err != nil {
			t.Fatal(err)
		}
		c.TLog = tl
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tl.Close(ctx)
	})
	for _, p := range []string{"/v1/log/checkpoint", "/v1/log/tile/entries/000.p/1", "/v1/log/tile/0/000.p/1"} {
		code, body := get(t, f.ts.URL+p)
		if code != 401 || decodeErr(t, string(body)).Error != "UNAUTHORIZED" {
			t.Errorf("GET %s without the token: %d %s", p, code, body)
		}
		req, _ := http.NewRequest("GET", f.ts.URL+p, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 401 {
			t.Errorf("GET %s with the token: 401", p)
		}
	}
}
