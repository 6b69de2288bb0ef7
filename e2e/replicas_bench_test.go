//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// BenchmarkServerCPUFloor: logbook-server's CPU per event as a ratio to
// the floor server's (testdata/serverfloor), all arms in one run, under
// 16 clients flat out (fast: 8,000 events, each client its own session on
// a kept-alive connection) and 16 clients paced at 1,000 events/s for 2 s
// (paced). Floors: floor (--floor append-fsync: append each body to a
// file per session, answer, then fsync) and floor-wait (the same, the
// fsync before the answer). Arms: file, the server as deployed with its
// data directory (group commit: answered after the fsync; POSIX log);
// file-background (--fsync background: answered once written, the fsync
// right after, as the floor); db, one replica on $LOGBOOK_TEST_MYSQL_DSN
// (--db: answered after COMMIT; the log on the same database). Every
// logbook-server arm runs with what it has by default: the session index
// on (SQLite in DATA/index.db, fed in batches of up to 1 s) and the
// transparency log (POSIX, or on the database with --db); the floors have
// neither. Each arm reports cpu-us/event (the server process's
// user+system time), ratio (over floor's in the same run: the last floor
// run of that load) and ratio-wait (over floor-wait's); the db arm also
// reports db-cpu-us/event, MariaDB's own, when its process can be read
// (on a shared MariaDB, with what else it served).
func BenchmarkServerCPUFloor(b *testing.B) {
	dir := b.TempDir()
	floor := filepath.Join(dir, "serverfloor")
	if out, err := exec.Command("go", "build", "-o", floor, "./testdata/serverfloor").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	dsn := testmysql.DSN(b)
	for _, load := range []string{"fast", "paced"} {
		floorCPU := map[string]float64{}
		for _, arm := range []struct {
			name  string
			extra []string
		}{
			{"floor", []string{"--floor", "append-fsync"}},
			{"floor-wait", []string{"--floor", "append-fsync-wait"}},
			{"file", nil},
			{"file-background", []string{"--fsync", "background"}},
			{"db", []string{"--db", dsn}},
		} {
			isFloor := strings.HasPrefix(arm.name, "floor")
			b.Run(load+"-"+arm.name, func(b *testing.B) {
				if isFloor {
					b.Setenv("LOGBOOK_E2E_SERVER", floor)
				}
				d := b.TempDir()
				s := startServer(b, freePort(b), filepath.Join(d, "data"), newServerKey(b, d), nil, arm.extra...)
				defer func() { s.cmd.Process.Kill(); s.cmd.Wait() }()
				db := mariadbPID()
				cpu0, dbCPU0 := procCPU(b, s.cmd.Process.Pid), pidCPU(db)
				prefix := fmt.Sprintf("%s-%s", load, arm.name)
				var n int
				if load == "fast" {
					n = flatOut(b, s.url, prefix)
				} else {
					n, _, _ = pacedLatency(b, s.url, func(it, c, i int) []byte {
						return toolEvent(fmt.Sprintf("%s-%d-%02d", prefix, it, c), i)
					})
				}
				cpu := float64((procCPU(b, s.cmd.Process.Pid) - cpu0).Microseconds()) / float64(n)
				b.ReportMetric(cpu, "cpu-us/event")
				if isFloor {
					floorCPU[arm.name] = cpu
				} else if floorCPU["floor"] > 0 && floorCPU["floor-wait"] > 0 {
					b.ReportMetric(cpu/floorCPU["floor"], "ratio")
					b.ReportMetric(cpu/floorCPU["floor-wait"], "ratio-wait")
				}
				if arm.name == "db" && db > 0 {
					b.ReportMetric(float64((pidCPU(db)-dbCPU0).Microseconds())/float64(n), "db-cpu-us/event")
				}
			})
		}
	}
}

// flatOut sends 8,000 events from 16 clients as fast as the server
// answers, each client its own session on a kept-alive connection, and
// returns how many were sent.
func flatOut(b *testing.B, url, prefix string) int {
	const clients, each = 16, 500
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			cl := &http.Client{Transport: tr}
			for i := range each {
				resp, err := cl.Post(url+"/v1/hooks/claude-code", "application/json", bytes.NewReader(toolEvent(fmt.Sprintf("%s-%02d", prefix, c), i)))
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Error(resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	return clients * each
}

// mariadbPID is the pid of the MariaDB server on this machine (0: none
// found), for its CPU beside the replica's.
func mariadbPID() int {
	out, err := exec.Command("pgrep", "-o", "-x", "mariadbd").Output()
	if err != nil {
		out, _ = exec.Command("pgrep", "-o", "-x", "mysqld").Output()
	}
	var pid int
	fmt.Sscan(strings.TrimSpace(string(out)), &pid)
	return pid
}

// pidCPU is procCPU of a process this test did not start (0 when it
// cannot be read).
func pidCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if pid == 0 || err != nil {
		return 0
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}
