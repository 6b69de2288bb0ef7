package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/server"
)

// TestBigBodiesMemory sends 8 large bodies at once, each just under the
// hook body limit (4 MiB here; 32 MiB by default), each the first event
// of its own session, and counts the memory they cost by what does not
// depend on the collector's timing: the bytes allocated per body
// (runtime.MemStats.TotalAlloc), and the heap still live once all are
// answered. A body must be held once: read into one buffer of its length,
// hashed a piece at a time, and dropped with its request. Before, it was
// read by growing a buffer (about four times the body allocated), copied
// whole into the canonical-JSON buffer to be hashed, and kept alive after
// its request by its session's id, a view into it: 8 bodies of 31 MiB
// sent at once peaked at 778 MiB (docs/server.md).
func TestBigBodiesMemory(t *testing.T) {
	const limit = 4 << 20
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		c.Fsync = server.FsyncOff
		c.MaxHookBody = limit
	})
	bodies := make([][]byte, 8)
	for i := range bodies {
		head := fmt.Sprintf(`{"session_id":"big%d","hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"t1","tool_response":{"stdout":"`, i)
		bodies[i] = []byte(head + strings.Repeat("x", limit-len(head)-100) + `"}}`)
	}
	// Through the handler, which returns only once the request is done;
	// the answers are kept, as a keep-alive connection keeps its last
	// one's headers until its next request.
	h := f.srv.Handler()
	answers := make([]*httptest.ResponseRecorder, len(bodies))
	post := func(i int, b []byte) {
		answers[i] = httptest.NewRecorder()
		h.ServeHTTP(answers[i], httptest.NewRequest("POST", "/v1/hooks", bytes.NewReader(b)))
		if answers[i].Code != 200 {
			t.Errorf("status %d: %s", answers[i].Code, answers[i].Body.Bytes())
		}
	}
	post(0, []byte(`{"session_id":"warm","hook_event_name":"SessionStart"}`)) // warm up
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	for i, b := range bodies {
		wg.Go(func() { post(i, b) })
	}
	wg.Wait()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(bodies)
	runtime.KeepAlive(answers)
	perBody := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(bodies)) / limit
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("allocated %.2f× each body; %d KiB still live after", perBody, live>>10)
	if perBody > 1.5 {
		t.Errorf("allocated %.2f× each body, want at most 1.5×", perBody)
	}
	if live > limit {
		t.Errorf("%d KiB still live once all %d bodies are answered, want under one body (%d KiB)", live>>10, len(bodies), limit>>10)
	}
}
