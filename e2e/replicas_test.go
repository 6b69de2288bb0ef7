package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestReplicasKill is issue 36's item 6: three logbook-server processes
// on one MariaDB (--db), 16 clients each sending one session's events
// round-robin over the replicas from two goroutines at once (every
// session's events land on all three, two at a time), two replicas killed with SIGKILL mid-load (the first started
// again on its dirty working copy), each client going on to the next
// replica when one does not answer, as record-step's retry would. Every
// session's record, fetched from another replica than sealed it,
// verifies with logbook-verify; every event a replica acknowledged is in
// its record; every checkpoint any replica ever signed lies on the
// record's chain (0 forks).
func TestReplicasKill(t *testing.T) {
	dsn := testmysql.DSN(t)
	dir := t.TempDir()
	key := newServerKey(t, dir)
	tok, rtok := filepath.Join(dir, "token"), filepath.Join(dir, "read.token")
	os.WriteFile(tok, []byte("hook-token\n"), 0o600)
	os.WriteFile(rtok, []byte("read-token\n"), 0o600)
	addrs := []string{freePort(t), freePort(t), freePort(t)}
	start := func(i int) *liveServer {
		return startServer(t, addrs[i], filepath.Join(dir, fmt.Sprint("data", i)), key, nil,
			"--db", dsn, "--token-file", tok, "--read-token-file", rtok)
	}
	var mu sync.Mutex
	reps := []*liveServer{start(0), start(1), start(2)}
	url := func(i int) string { mu.Lock(); defer mu.Unlock(); return reps[i].url }

	const clients, events = 16, 60
	client := &http.Client{Timeout: 20 * time.Second}
	// refused counts answers other than 200: a killed replica answers
	// nothing, and a live one never refuses (the session's lock makes
	// replicas wait for each other, not fail on each other's writes).
	var refused atomic.Int64
	send := func(i int, body []byte) bool {
		req, _ := http.NewRequest("POST", url(i)+"/v1/hooks/claude-code", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer hook-token")
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			refused.Add(1)
			t.Logf("refused: %d %s", resp.StatusCode, b)
		}
		return resp.StatusCode == 200
	}
	// sendRetry sends to replica first, then to the next ones, until one
	// acknowledges (a killed replica's port refuses; its restart answers).
	var retries atomic.Int64
	sendRetry := func(first int, body []byte) {
		for try := 0; ; try++ {
			if send((first+try)%len(addrs), body) {
				return
			}
			retries.Add(1)
			if try > 60 {
				t.Errorf("no replica acknowledged %s", body)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var acked atomic.Int64
	acks := make([][]int, clients) // the events of each session acknowledged
	// Each client sends its session's events from two goroutines at once
	// (a harness's parallel tool calls), to two replicas at once.
	var wg sync.WaitGroup
	var ackMu sync.Mutex
	for c := range clients {
		for k := range 2 {
			wg.Go(func() {
				session := fmt.Sprintf("dev%02d-session", c)
				for i := k; i < events; i += 2 {
					sendRetry((c+i)%len(addrs), toolEvent(session, i))
					ackMu.Lock()
					acks[c] = append(acks[c], i)
					ackMu.Unlock()
					acked.Add(1)
				}
			})
		}
	}
	// The kills, on the test's goroutine while the clients send.
	for _, k := range []struct {
		at      int64
		replica int
		restart bool
	}{{clients * events / 4, 0, true}, {clients * events / 2, 1, false}} {
		for acked.Load() < k.at {
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		s := reps[k.replica]
		mu.Unlock()
		s.cmd.Process.Kill() // SIGKILL
		s.cmd.Wait()
		if k.restart {
			r := start(k.replica)
			mu.Lock()
			reps[k.replica] = r
			mu.Unlock()
		}
	}
	wg.Wait()
	t.Logf("%d events acknowledged, %d retries on another replica", acked.Load(), retries.Load())
	if refused.Load() > 0 {
		t.Fatalf("%d events refused by a live replica", refused.Load())
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for c := range clients {
		session := fmt.Sprintf("dev%02d-session", c)
		end, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": "SessionEnd", "reason": "other", "cwd": "/work/project"})
		sendRetry(c%3, end)
		// Read from another live replica than the one that sealed.
		from := []int{0, 2}[c%2]
		rec := readWith(t, url(from)+"/v1/sessions/"+session+"/record")
		cp := readWith(t, url(2-from)+"/v1/sessions/"+session+"/record-checkpoint")
		recFile, cpFile := filepath.Join(dir, session+".json"), filepath.Join(dir, session+".cp")
		os.WriteFile(recFile, rec, 0o644)
		os.WriteFile(cpFile, cp, 0o644)
		out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", key+".pub", "--checkpoint", cpFile, "--checkpoint-key", key+".vkey", recFile).Output()
		var v struct {
			OK    bool
			Level string
			Code  string
		}
		if json.Unmarshal(out, &v); !v.OK || v.Level != "server" {
			t.Fatalf("%s: %s", session, out)
		}
		var r struct {
			Steps []struct {
				Seq  int64
				Hash string
				Data struct{ Event, ToolUseID string }
			}
		}
		if err := json.Unmarshal(rec, &r); err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, s := range r.Steps {
			if s.Data.Event == "PreToolUse" || s.Data.Event == "PostToolUse" {
				have[s.Data.Event+" "+s.Data.ToolUseID] = true
			}
		}
		for _, i := range acks[c] {
			name, id := map[bool]string{true: "PostToolUse", false: "PreToolUse"}[i%2 == 1], fmt.Sprintf("toolu_%06d", i)
			if !have[name+" "+id] {
				t.Fatalf("%s: acknowledged %s %s is not in the record", session, name, id)
			}
		}
		// Every checkpoint any replica signed names a step of this chain.
		rows, err := db.QueryContext(context.Background(), "SELECT `note` FROM `logbook_checkpoints` WHERE `session` = ?", session)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var note []byte
			rows.Scan(&note)
			text, _, _ := bytes.Cut(note, []byte("\n\n"))
			c, err := checkpoint.Parse(append(text, '\n'))
			if err != nil || c.Size > int64(len(r.Steps)) || r.Steps[c.Size-1].Hash != c.Tip {
				t.Fatalf("%s: checkpoint off the record's chain (a fork): %s (%v)", session, text, err)
			}
			n++
		}
		rows.Close()
		if n < events {
			t.Fatalf("%s: %d checkpoints for %d events", session, n, events)
		}
	}
}

// readWith GETs a read route with the read token, failing the test on
// anything but 200.
func readWith(t *testing.T, url string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer read-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return b
}
