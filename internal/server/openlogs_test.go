package server_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/server"
)

// openLogs counts the files under dir this process holds open.
func openLogs(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd: cannot count open files")
	}
	n := 0
	for _, e := range ents {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(p, dir) {
			n++
		}
	}
	return n
}

// Sessions that never end, checkpoints fetched for sealed sessions and
// sessions resumed at start must not each keep files open for the life
// of the server: past the process's limit, no event could be recorded.
// At most 256 sessions are held, three files each (800: 3×256 and a few);
// 600 sessions would hold 1,800.
func TestOpenLogsBounded(t *testing.T) {
	f := newServer(t, nil)
	const sessions = 600
	for i := range sessions {
		if code, body := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks", event(fmt.Sprintf("never-ends-%d", i), "PreToolUse", i)); code != 200 {
			t.Fatalf("event %d: %d %s", i, code, body)
		}
	}
	if n := openLogs(t, f.opts.Dir); n > 800 {
		t.Fatalf("%d sessions left %d files open", sessions, n)
	}
	for i := range sessions {
		if code, _ := get(t, fmt.Sprintf("%s/v1/sessions/never-ends-%d/checkpoint", f.ts.URL, i)); code != 200 {
			t.Fatalf("checkpoint %d: %d", i, code)
		}
	}
	if n := openLogs(t, f.opts.Dir); n > 800 {
		t.Fatalf("fetching %d checkpoints left %d files open", sessions, n)
	}
	f.ts.Close()
	f.srv.Close()
	srv, err := server.New(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	if n := openLogs(t, f.opts.Dir); n > 800 {
		t.Fatalf("resuming %d sessions left %d files open", sessions, n)
	}
}

// TestShedConcurrent: sessions shed and opened again while others append
// lose no checkpoint: each session's latest counts all its steps.
func TestShedConcurrent(t *testing.T) {
	f := newServer(t, nil)
	const workers, sessions, events = 8, 80, 3
	var wg sync.WaitGroup
	errs := make(chan string, workers*sessions*events)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range events {
				for s := range sessions {
					id := fmt.Sprintf("shed-%d-%d", w, s)
					if code, body := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks", event(id, "PreToolUse", e)); code != 200 {
						errs <- fmt.Sprintf("%s event %d: %d %s", id, e, code, body)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	for w := range workers {
		for s := range sessions {
			id := fmt.Sprintf("shed-%d-%d", w, s)
			_, cp := get(t, f.ts.URL+"/v1/sessions/"+id+"/checkpoint")
			c, err := checkpoint.Open(cp, []checkpoint.Key{{Pub: f.pub}}, nil)
			if err != nil || c.Size != events {
				t.Fatalf("%s: %+v %v", id, c, err)
			}
		}
	}
}
