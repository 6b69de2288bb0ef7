package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/server"
)

// BenchmarkResumeMany (issue 32, item 11): a session resumed many times
// (`claude --resume` under the same id, each round a SessionStart, 198
// tool events and a SessionEnd) against a fresh session of the same
// round, in one server, in process, alternating: resumed/fresh is the
// ratio of their events/s at the resume count given (resumes=15: the
// round recorded is the 16th of its session), each round alone. read-ms
// is how long the last resumed round's first record read waited for the
// seal that runs after its SessionEnd's answer. disk/latest is what the
// session's sealed records hold on disk over its latest record's size.
//
//	go test ./internal/server -run XXX -bench ResumeMany -benchtime 4x
func BenchmarkResumeMany(b *testing.B) {
	for _, resumes := range []int{1, 15} {
		b.Run(fmt.Sprintf("resumes=%d", resumes), func(b *testing.B) {
			f := newServer(b, func(c *server.Config, _ *http.Server) { c.Fsync = server.FsyncOff })
			h := f.srv.Handler()
			round := func(id string) time.Duration {
				t0 := time.Now()
				for i := 0; i < 200; i++ {
					var body []byte
					switch {
					case i == 0:
						body = event(id, "SessionStart", 0)
					case i == 199:
						body = event(id, "SessionEnd", 0)
					case i%2 == 1:
						body = event(id, "PreToolUse", i/2)
					default:
						body = event(id, "PostToolUse", i/2-1)
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, httptest.NewRequest("POST", "/v1/hooks/claude-code", bytes.NewReader(body)))
					if w.Code != 200 {
						b.Fatal(id, i, w.Code, w.Body.String())
					}
				}
				return time.Since(t0)
			}
			for n := range b.N {
				for range resumes {
					round(fmt.Sprintf("old-%d", n))
				}
			}
			// Each round is timed alone: a read of the record after it
			// (untimed) waits for any seal still running after the
			// SessionEnd's answer, so that no round pays another's.
			// read-ms is that wait, after a resumed round.
			var fresh, resumed, read time.Duration
			settle := func(id string) {
				t0 := time.Now()
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("GET", "/v1/sessions/"+id+"/record", nil))
				if w.Code != 200 {
					b.Fatal(id, w.Code, w.Body.String())
				}
				read += time.Since(t0)
			}
			b.ResetTimer()
			for n := range b.N {
				fresh += round(fmt.Sprintf("new-%d", n))
				settle(fmt.Sprintf("new-%d", n))
				resumed += round(fmt.Sprintf("old-%d", n))
				b.StopTimer()
				read = 0
				settle(fmt.Sprintf("old-%d", n))
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(fresh)/float64(resumed), "resumed/fresh")
			b.ReportMetric(float64(read.Microseconds())/1000, "read-ms")
			var disk int64
			names, _ := filepath.Glob(filepath.Join(f.opts.Dir, "old-0.record*.json"))
			for _, n := range names {
				st, _ := os.Stat(n)
				disk += st.Size()
			}
			latest, err := os.Stat(filepath.Join(f.opts.Dir, "old-0.record.json"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(disk)/float64(latest.Size()), "disk/latest")
		})
	}
}
