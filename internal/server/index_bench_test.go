package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/ostest"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// The index's sizes: 100 steps a session, so 100 sessions hold 10,000
// steps and 10,000 sessions 1,000,000. A developer, a repository and a
// minute of start times are shared by 20 sessions at either size, so
// that each query's page holds the same rows at both: what differs is
// only how many rows the index holds, which a seek does not read.
const (
	benchSteps = 100
	benchPage  = 20
)

// synthSessions folds n sessions of benchSteps steps each, as the feed
// folds a journal's steps.
func synthSessions(n int) []*index.Session {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tools := []string{"Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch", "Task"}
	out := make([]*index.Session, 0, n)
	for i := range n {
		h := index.Header{ID: fmt.Sprintf("s-%06d", i), Cwd: fmt.Sprintf("/home/d%d/repo%d", i%(n/20), i%(n/20)), Harness: "claude-code"}
		f := index.NewFold(h, "", fmt.Sprintf("d%d", i%(n/20)), "m1", "server")
		start := base.Add(time.Duration(i) * time.Minute)
		for k := range benchSteps {
			at := start.Add(time.Duration(k) * time.Second).Format(time.RFC3339)
			st := index.Step{At: at, Kind: "exec", Event: "PreToolUse", Tool: tools[(i+k)%len(tools)]}
			switch {
			case k == 0:
				st = index.Step{At: at, Kind: "note", Event: "SessionStart"}
			case k == benchSteps-1:
				st = index.Step{At: at, Kind: "note", Event: "SessionEnd"}
			case k == 10:
				st = index.Step{At: at, Kind: "note", Event: "logbook.commit", Commit: fmt.Sprintf("c%06d", i)}
			case k%10 == 1:
				d := "allow"
				if i%3 == 0 && k == 1 {
					d = "deny"
				}
				st = index.Step{At: at, Kind: "gate", Event: "PolicyGate", Tool: "Bash", Decision: d, Policy: "p1"}
			case k == 50 && i%7 == 0:
				st = index.Step{At: at, Kind: "note", Event: "logbook.unsent", Count: 1}
			}
			f.Add(st)
		}
		f.S.Verdict = index.VerdictSealed
		out = append(out, &f.S)
	}
	return out
}

// benchQueries are index.DocumentedQueries with values each size has:
// every page is full (benchPage rows) at both sizes but "commit" (one).
func benchQueries(n int) map[string]index.Query {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(i int) int64 { return base.Add(time.Duration(i) * time.Minute).UnixMilli() }
	qs := index.DocumentedQueries("") // the stub authorizes the default tenant
	for name, q := range qs {
		q.Limit = benchPage
		switch name {
		case "commit":
			q.Commit = fmt.Sprintf("c%06d", n/2)
		case "since":
			q.SinceMS, q.UntilMS = at(n-60), at(n-10)
		case "page 2":
			q.Cursor = index.CursorAt(at(n-30), fmt.Sprintf("s-%06d", n-30))
		default:
			if q.Cursor != "" {
				// A sorted order's page 2: after synthSessions' session
				// 30 (ascending orders) or n-30 (descending).
				i := n - 30
				if q.Sort == index.SortOldest || q.Sort == index.SortDeveloper || q.Sort == index.SortRepo {
					i = 30
				}
				d := fmt.Sprintf("d%d", i%(n/20))
				q.Cursor = index.CursorFor(q.Sort, &index.Session{ID: fmt.Sprintf("s-%06d", i), StartMS: at(i), Steps: benchSteps,
					EndMS: base.Add(time.Duration(i)*time.Minute + time.Duration(benchSteps-1)*time.Second).UnixMilli(), Developer: d, Repo: "repo" + d[1:]})
			}
		}
		qs[name] = q
	}
	return qs
}

// benchIndex opens an index of n synthetic sessions: for SQLite a file
// kept in the temporary folder across runs (built once), for MySQL a
// fresh database.
func benchIndex(b *testing.B, driver string, n int) *index.Index {
	ix, _ := benchIndexAt(b, driver, n)
	return ix
}

// benchIndexAt is benchIndex with the DSN it opened, for another
// process to open the same index.
func benchIndexAt(b *testing.B, driver string, n int) (*index.Index, string) {
	ctx := context.Background()
	dsn := filepath.Join(os.TempDir(), fmt.Sprintf("logbook-index-bench-v2-%d.db", n))
	if driver == "mysql" {
		dsn = testmysql.DSN(b)
	}
	_, err := os.Stat(dsn)
	built := driver == "sqlite" && err == nil
	ix, err := index.Open(ctx, driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if built {
		return ix, dsn
	}
	ss := synthSessions(n)
	for i := 0; i < len(ss); i += 1000 {
		if err := ix.Put(ctx, ss[i:min(i+1000, len(ss))]...); err != nil {
			b.Fatal(err)
		}
	}
	return ix, dsn
}

// BenchmarkSearch: each documented query at 10,000 and 1,000,000
// indexed steps, straight against the database ("db"), through GET
// /v1/sessions's handler ("route": authorization, the query read, the
// search and the JSON, no socket) and over a loopback socket ("http"),
// on SQLite and MariaDB, side by side in one run:
//
//	go test ./internal/server -run '^$' -bench BenchmarkSearch -benchtime 400x
//
// Each iteration runs the four in turn and each is timed on its own, so
// that the load of a shared machine falls on all four alike; the
// figures are medians, and the ratios (1M/10k: the big index against
// the small one; route/db and http/db: over the same big index) are
// what the benchmark is for.
func BenchmarkSearch(b *testing.B) {
	for _, driver := range []string{"sqlite", "mysql"} {
		small, big := benchIndex(b, driver, 100), benchIndex(b, driver, 10000)
		key := ed25519.NewKeyFromSeed(make([]byte, 32))
		srv, err := server.New(server.Config{Dir: b.TempDir(), Origin: "bench", Key: key, Index: big, ReadToken: "rt"})
		if err != nil {
			b.Fatal(err)
		}
		hs := http.Server{Handler: srv.Handler()}
		ln := listen(b)
		go hs.Serve(ln)
		b.Cleanup(func() { hs.Close(); srv.Close() })
		h := srv.Handler()
		c := &http.Client{}
		// The floor: a handler that does nothing, served and asked the
		// same way, so what the socket and the client cost by themselves
		// is measured beside the route.
		fs := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })}
		fln := listen(b)
		go fs.Serve(fln)
		b.Cleanup(func() { fs.Close() })
		floorURL := "http://" + fln.Addr().String() + "/"
		base := "http://" + ln.Addr().String() + "/v1/sessions?"
		smallQs, bigQs := benchQueries(100), benchQueries(10000)
		for _, name := range sortedNames(bigQs) {
			qs, qb := smallQs[name], bigQs[name]
			want := benchPage
			if name == "commit" {
				want = 1
			}
			u := base + queryString(qb)
			for _, got := range []int{searchLen(b, small, qs), searchLen(b, big, qb), len(httpSearch(b, c, u).Sessions)} {
				if got != want {
					b.Fatalf("%s/%s: %d sessions, want %d", driver, name, got, want)
				}
			}
			b.Run(driver+"/"+name, func(b *testing.B) {
				var dbS, dbB, route, hp, fl, hop []time.Duration
				freq, _ := http.NewRequest("GET", floorURL, nil)
				freq.Header.Set("Authorization", "Bearer rt")
				req := httptest.NewRequest("GET", u, nil)
				req.Header.Set("Authorization", "Bearer rt")
				hreq, _ := http.NewRequest("GET", u, nil)
				hreq.Header.Set("Authorization", "Bearer rt")
				// The hop: the route's handler on a goroutine of its own,
				// handed the request over a channel, as net/http's
				// connection goroutine is: no socket, no client.
				work, done := make(chan *httptest.ResponseRecorder), make(chan bool)
				go func() {
					for w := range work {
						h.ServeHTTP(w, req)
						done <- true
					}
				}()
				defer close(work)
				ctx := context.Background()
				for b.Loop() {
					t0 := time.Now()
					if _, err := small.Search(ctx, qs); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if _, err := big.Search(ctx, qb); err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					t3 := time.Now()
					resp, err := c.Do(hreq)
					if err != nil || w.Code != 200 {
						b.Fatal(w.Code, err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					t4 := time.Now()
					if resp, err = c.Do(freq); err != nil || resp.StatusCode != http.StatusNoContent {
						b.Fatal(resp, err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					t5 := time.Now()
					w = httptest.NewRecorder()
					work <- w
					<-done
					if w.Code != 200 {
						b.Fatal(w.Code)
					}
					t6 := time.Now()
					dbS, dbB, route, hp = append(dbS, t1.Sub(t0)), append(dbB, t2.Sub(t1)), append(route, t3.Sub(t2)), append(hp, t4.Sub(t3))
					fl, hop = append(fl, t5.Sub(t4)), append(hop, t6.Sub(t5))
				}
				ms, mb, mr, mh, mf, mo := median(dbS), median(dbB), median(route), median(hp), median(fl), median(hop)
				b.ReportMetric(ms, "µs-db-10k")
				b.ReportMetric(mb, "µs-db-1M")
				b.ReportMetric(mb/ms, "1M/10k")
				b.ReportMetric(mr/mb, "route/db")
				b.ReportMetric(mo/mb, "hop/db")
				b.ReportMetric(mh/mb, "http/db")
				b.ReportMetric(mf, "µs-floor")
				b.ReportMetric((mh-mf)/mb, "(http-floor)/db")
			})
		}
	}
}

func searchLen(b *testing.B, ix *index.Index, q index.Query) int {
	pg, err := ix.Search(context.Background(), q)
	if err != nil {
		b.Fatal(err)
	}
	return len(pg.Sessions)
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds()) / 1000
}

func sortedNames(m map[string]index.Query) []string {
	names := slices.Collect(maps.Keys(m))
	slices.Sort(names)
	return names
}

func queryString(q index.Query) string {
	v := url.Values{}
	for k, s := range map[string]string{"developer": q.Developer, "repo": q.Repo, "commit": q.Commit, "tool": q.Tool,
		"decision": q.Decision, "level": q.Level, "cursor": q.Cursor, "sort": q.Sort} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.SinceMS != 0 {
		v.Set("since", index.Time(q.SinceMS))
	}
	if q.UntilMS != 0 {
		v.Set("until", index.Time(q.UntilMS))
	}
	v.Set("limit", strconv.Itoa(q.Limit))
	return v.Encode()
}

func listen(b testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	return ln
}

func httpSearch(b testing.TB, c *http.Client, u string) server.SearchAnswer {
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer rt")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var a server.SearchAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != 200 {
		b.Fatalf("%s: %s %v", u, resp.Status, err)
	}
	return a
}

// BenchmarkAppendIndexed: the process's CPU per hook event (the handler
// in process, fsync off, events spread over 50 sessions) with no index
// and with the SQLite index fed, the feed's goroutine counted (its queue
// drained before the clock stops):
//
//	go test ./internal/server -run '^$' -bench BenchmarkAppendIndexed -benchtime 4000x
func BenchmarkAppendIndexed(b *testing.B) {
	for _, arm := range []string{"none", "sqlite"} {
		b.Run("index="+arm, func(b *testing.B) {
			f := newServer(b, func(c *server.Config, _ *http.Server) {
				c.Fsync = server.FsyncOff
				if arm == "sqlite" {
					ix, err := index.Open(context.Background(), "sqlite", filepath.Join(b.TempDir(), "index.db"))
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { ix.Close() })
					c.Index = ix
				}
			})
			h := f.srv.Handler()
			bodies := make([][]byte, 50)
			for i := range bodies {
				bodies[i] = event(fmt.Sprintf("bench-%02d", i), "PreToolUse", 1)
			}
			cpu := ostest.CPUTime()
			i := 0
			for b.Loop() {
				r := httptest.NewRequest("POST", "/v1/hooks/claude-code", bytes.NewReader(bodies[i%len(bodies)]))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
				i++
			}
			f.srv.IndexFlush()
			b.ReportMetric(float64((ostest.CPUTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/event")
		})
	}
}
