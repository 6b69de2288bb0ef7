package server_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

// BenchmarkHookHTTP: gated PreToolUse events over real HTTP (keep-alive
// connections, as net/http's client and Claude Code's HTTP hooks keep
// them) at the in-process server with the 50-rule policy, --fsync
// background, and the product's default log level (info, JSON, to a
// discarded writer): the server's per-event CPU without the e2e
// benchmark's debug log. Sixteen sessions take turns. cpu-us/op is the
// process's user+system time per event (client included).
func BenchmarkHookHTTP(b *testing.B) {
	f := newServer(b, func(c *server.Config, _ *http.Server) {
		c.Fsync = server.FsyncBackground
		c.Gate = fiftyRules(b)
		c.Log = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	url := f.ts.URL + "/v1/hooks/claude-code"
	bodies := make([][]byte, 1024)
	for i := range bodies {
		bodies[i] = event(fmt.Sprintf("s%02d", i%16), "PreToolUse", i)
	}
	cpu0 := ostest.CPUTime()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := cl.Post(url, "application/json", bytes.NewReader(bodies[i%len(bodies)]))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.StatusCode)
		}
	}
	b.StopTimer()
	cpu := ostest.CPUTime() - cpu0
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
}
