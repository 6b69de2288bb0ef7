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

// TestCloseHandsQueuedLeavesToLog: the hook only queues a checkpoint's
// leaf (tlog.go); closing the server right after the last answer, then
// the log, must still leave every checkpoint in the log: Close hands the
// whole queue to Tessera, whose Close integrates it.
func TestCloseHandsQueuedLeavesToLog(t *testing.T) {
	logDir := filepath.Join(t.TempDir(), "log")
	var tl *translog.Log
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		var err error
		if tl, err = translog.Open(context.Background(), translog.Config{Dir: logDir, Origin: "logbook.test/log", Key: c.Key}); err != nil {
			t.Fatal(err)
		}
		c.TLog = tl
	})
	const events = 300
	f.record(t, http.DefaultClient, "drain", events, false)
	f.ts.Close()
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := tl.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := translog.Open(ctx, translog.Config{Dir: logDir, Origin: "logbook.test/log", Key: f.key})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close(ctx)
	size, _, err := again.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if size != events {
		t.Fatalf("log of %d leaves after Close, want %d (one per checkpoint)", size, events)
	}
}
