package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSearchDeployed: GET /v1/sessions as deployed, logbook-server
// (the real binary, built here) in a process of its own over the
// 1,000,000-step index BenchmarkSearch builds (the same SQLite file, the
// same kind of MariaDB database, through --index and --index-dsn), asked
// over a loopback socket by a kept-alive client in the benchmark's
// process, beside the same query straight against the same database from
// the benchmark's process:
//
//	go test ./internal/server -run '^$' -bench BenchmarkSearchDeployed -benchtime 400x
//
// Each iteration runs the query ("db"), the route ("http"), the
// server's cheapest route, GET /healthz ("floor": the socket, the
// client and the server's own request handling with no search) and the
// same GET of a bare net/http process that answers it with nothing
// (e2e/testdata/serverfloor: "bare", what two processes' round trip
// costs by itself), each timed on its own; the figures are medians.
func BenchmarkSearchDeployed(b *testing.B) {
	dir := b.TempDir()
	exe := filepath.Join(dir, "logbook-server")
	if out, err := exec.Command("go", "build", "-o", exe, "github.com/logbook-project/logbook/cmd/logbook-server").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	floor := filepath.Join(dir, "serverfloor")
	if out, err := exec.Command("go", "build", "-o", floor, "../../e2e/testdata/serverfloor").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	bare := startDeployed(b, floor)
	key := filepath.Join(dir, "server.key")
	if out, err := exec.Command(exe, "--new-key", key, "--name", "bench").CombinedOutput(); err != nil {
		b.Fatalf("--new-key: %v %s", err, out)
	}
	tok := filepath.Join(dir, "read.token")
	if err := os.WriteFile(tok, []byte("rt\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, driver := range []string{"sqlite", "mysql"} {
		big, dsn := benchIndexAt(b, driver, 10000)
		base := startDeployed(b, exe, "--key", key, "--name", "bench", "--read-token-file", tok, "--index", driver, "--index-dsn", dsn)
		c := &http.Client{Transport: &http.Transport{}}
		b.Cleanup(c.CloseIdleConnections)
		qs := benchQueries(10000)
		for _, name := range sortedNames(qs) {
			q := qs[name]
			want := benchPage
			if name == "commit" {
				want = 1
			}
			u := base + "/v1/sessions?" + queryString(q)
			for _, got := range []int{searchLen(b, big, q), len(httpSearch(b, c, u).Sessions)} {
				if got != want {
					b.Fatalf("%s/%s: %d sessions, want %d", driver, name, got, want)
				}
			}
			b.Run(driver+"/"+name, func(b *testing.B) {
				var db, hp, fl, br []time.Duration
				hreq, _ := http.NewRequest("GET", u, nil)
				hreq.Header.Set("Authorization", "Bearer rt")
				freq, _ := http.NewRequest("GET", base+"/healthz", nil)
				breq, _ := http.NewRequest("GET", bare+"/healthz", nil)
				ctx := context.Background()
				for b.Loop() {
					t0 := time.Now()
					if _, err := big.Search(ctx, q); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					getOK(b, c, hreq)
					t2 := time.Now()
					getOK(b, c, freq)
					t3 := time.Now()
					getOK(b, c, breq)
					t4 := time.Now()
					db, hp, fl, br = append(db, t1.Sub(t0)), append(hp, t2.Sub(t1)), append(fl, t3.Sub(t2)), append(br, t4.Sub(t3))
				}
				md, mh, mf := median(db), median(hp), median(fl)
				b.ReportMetric(median(br), "µs-bare")
				b.ReportMetric(md, "µs-db")
				b.ReportMetric(mh, "µs-http")
				b.ReportMetric(mh/md, "http/db")
				b.ReportMetric(mf, "µs-floor")
				b.ReportMetric((mh-mf)/md, "(http-floor)/db")
			})
		}
	}
}

// startDeployed runs exe (logbook-server or the floor) on a loopback
// port with a data directory of its own and waits until it answers; it
// returns its base URL.
func startDeployed(b *testing.B, exe string, args ...string) string {
	ln := listen(b)
	addr := ln.Addr().String()
	ln.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(exe, append([]string{"--listen", addr, "--data", filepath.Join(b.TempDir(), "data")}, args...)...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://" + addr
	for range 500 {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return base
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("logbook-server did not start: %s", stderr.String())
	return ""
}

func getOK(b *testing.B, c *http.Client, req *http.Request) {
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatal(req.URL, resp.Status)
	}
}
