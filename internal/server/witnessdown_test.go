package server_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/witness"
)

// TestWitnessDownDoesNotHoldHooks: the log's only witness stops answering
// (it takes each request and holds it, with a witness timeout of ten
// minutes, so Tessera's publishing is stuck inside the call). Sessions
// recorded meanwhile, SessionEnd and its seal included, are all answered
// while the witness still holds its requests: no hook's answer waits for
// a witness. (Before, a SessionEnd waited for its leaf's index.)
func TestWitnessDownDoesNotHoldHooks(t *testing.T) {
	t.Parallel()
	skey, wvkey, err := witness.GenerateKey("witness.test")
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := witness.NewSigner(skey)
	var hang atomic.Bool
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	var tl *translog.Log
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		_, lvkey, _ := translog.NewSigner("logbook.test/log", c.Key)
		w, err := witness.New(t.TempDir(), ws, []string{lvkey}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		h := w.Handler()
		go http.Serve(ln, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if hang.Load() {
				select {
				case held <- struct{}{}:
				default:
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
				http.Error(rw, "down", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(rw, r)
		}))
		t.Cleanup(func() { ln.Close() })
		pol := fmt.Sprintf("witness w1 %s http://%s\nquorum w1\n", wvkey, ln.Addr())
		tl, err = translog.Open(context.Background(), translog.Config{Dir: filepath.Join(t.TempDir(), "log"),
			Origin: "logbook.test/log", Key: c.Key, Witnesses: []byte(pol), WitnessTimeout: 10 * time.Minute,
			CheckpointInterval: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		c.TLog = tl
	})
	hang.Store(true)
	f.record(t, http.DefaultClient, "wd-0", 2, false) // something to publish
	<-held                                            // the log's publisher is inside a witness call, and stays there
	cl := &http.Client{Timeout: time.Minute}          // a hook held by the witness fails here, not in the test's timeout
	var wg sync.WaitGroup
	for s := range 4 {
		wg.Go(func() { f.record(t, cl, fmt.Sprintf("wd-%d", s+1), 20, true) })
	}
	wg.Wait()
	select {
	case <-release:
		t.Fatal("released early")
	default:
	}
	hang.Store(false) // back up: the log publishes, and closes without waiting
	close(release)
	f.ts.Close()
	f.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tl.Close(ctx)
}
