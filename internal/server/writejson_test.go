package server

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/index"
)

// TestWriteJSONConcurrent: writeJSON's pooled buffers are not shared
// between answers written at once (run with -race): each of 8 writers'
// 200 answers, search pages of its own and plain maps, one of them past
// the 64 KiB a pooled buffer is kept to, comes back whole, with its own
// Content-Length.
func TestWriteJSONConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				tag := fmt.Sprintf("g%d-i%d-\u2028\"", g, i)
				var v any = SearchAnswer{Sessions: []index.View{{ID: tag, Tools: []string{tag}}}, Next: tag}
				if i%3 == 1 {
					v = map[string]string{"next": tag}
				} else if i%50 == 7 {
					v = map[string]string{"next": tag, "pad": strings.Repeat("x", 100<<10)}
				}
				rec := httptest.NewRecorder()
				writeJSON(rec, 200, v)
				body := rec.Body.Bytes()
				var got struct{ Next string }
				if err := json.Unmarshal(body, &got); err != nil || got.Next != tag || rec.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
					t.Errorf("%s: %v, next %q, length %s of %d", tag, err, got.Next, rec.Header().Get("Content-Length"), len(body))
					return
				}
			}
		})
	}
	wg.Wait()
}
