package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/translog"
)

// TestLogErrorsNamed: the log's routes answer errors as every other
// route does, {"error": CODE, "detail": …} with the code's status.
func TestLogErrorsNamed(t *testing.T) {
	var tl *translog.Log
	f := newServer(t, func(c *server.Config, _ *http.Server) {
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
	for _, c := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/v1/log/tile/0/x.p/1", 400, "LOG_PATH_INVALID"},
		{"GET", "/v1/log/tile/entries/abc", 400, "LOG_PATH_INVALID"},
		{"GET", "/v1/log/tile/0/999", 404, "NOT_FOUND"},
		{"GET", "/v1/log/nothing-here", 404, "NOT_FOUND"},
		{"GET", "/v1/log/", 404, "NOT_FOUND"},
		{"POST", "/v1/log/checkpoint", 405, "METHOD_NOT_ALLOWED"},
	} {
		req, _ := http.NewRequest(c.method, f.ts.URL+c.path, strings.NewReader(""))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e jsonErr
		err = json.Unmarshal(b, &e)
		if err != nil || resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" || e.Error != c.code || e.Detail == "" {
			t.Errorf("%s %s: %d %q %s, want %d %s", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"), b, c.status, c.code)
		}
	}
}
