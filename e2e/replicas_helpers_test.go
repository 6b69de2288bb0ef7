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
)

// replicas is logbook-server processes on one database (--db), and the
// clients that send them events round-robin, going on to the next
// replica when one does not answer, as record-step's retry would
// (TestReplicasKill, TestReplicasFleet).
type replicas struct {
	t      *testing.T
	mu     sync.Mutex
	reps   []*liveServer
	start  func(i int) *liveServer
	client *http.Client
	// refused counts answers other than 200: a killed replica answers
	// nothing, and a live one never refuses (the session's lock makes
	// replicas wait for each other, not fail on each other's writes).
	refused, retries, acked atomic.Int64
	ackMu                   sync.Mutex
	acks                    map[string][]int // each session's events acknowledged
}

// startReplicas starts n replicas with start.
func startReplicas(t *testing.T, n int, start func(i int) *liveServer) *replicas {
	r := &replicas{t: t, start: start, client: &http.Client{Timeout: 20 * time.Second}, acks: map[string][]int{}}
	for i := range n {
		r.reps = append(r.reps, start(i))
	}
	return r
}

func (r *replicas) url(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reps[i].url
}

// send posts an event to replica i with the bearer auth.
func (r *replicas) send(i int, auth string, body []byte) bool {
	req, _ := http.NewRequest("POST", r.url(i)+"/v1/hooks/claude-code", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+auth)
	resp, err := r.client.Do(req)
	if err != nil {
		return false
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		r.refused.Add(1)
		r.t.Logf("refused: %d %s", resp.StatusCode, b)
	}
	return resp.StatusCode == 200
}

// sendRetry sends to replica first, then to the next ones, until one
// acknowledges (a killed replica's port refuses; its restart answers).
func (r *replicas) sendRetry(first int, auth string, body []byte) {
	for try := 0; ; try++ {
		if r.send((first+try)%len(r.reps), auth, body) {
			return
		}
		r.retries.Add(1)
		if try > 60 {
			r.t.Errorf("no replica acknowledged %s", body)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// load sends events tool events into each of sessions (with auths[c],
// its client's bearer), each session's from two goroutines at once (a
// harness's parallel tool calls) to two replicas at once, round-robin;
// meanwhile it kills replica 0 with SIGKILL a quarter of the way (and
// starts it again on its dirty working copy) and replica 1 halfway (for
// good). Replicas 0 and 2 answer after it.
func (r *replicas) load(sessions, auths []string, events int) {
	var wg sync.WaitGroup
	for c, session := range sessions {
		for k := range 2 {
			wg.Go(func() {
				for i := k; i < events; i += 2 {
					r.sendRetry((c+i)%len(r.reps), auths[c], toolEvent(session, i))
					r.ackMu.Lock()
					r.acks[session] = append(r.acks[session], i)
					r.ackMu.Unlock()
					r.acked.Add(1)
				}
			})
		}
	}
	total := int64(len(sessions) * events)
	for _, k := range []struct {
		at      int64
		replica int
		restart bool
	}{{total / 4, 0, true}, {total / 2, 1, false}} {
		for r.acked.Load() < k.at {
			time.Sleep(time.Millisecond)
		}
		r.mu.Lock()
		s := r.reps[k.replica]
		r.mu.Unlock()
		s.cmd.Process.Kill() // SIGKILL
		s.cmd.Wait()
		if k.restart {
			s := r.start(k.replica)
			r.mu.Lock()
			r.reps[k.replica] = s
			r.mu.Unlock()
		}
	}
	wg.Wait()
	r.t.Logf("%d events acknowledged, %d retries on another replica", r.acked.Load(), r.retries.Load())
	if r.refused.Load() > 0 {
		r.t.Fatalf("%d events refused by a live replica", r.refused.Load())
	}
}

// replicaStep is what the checks read of a record's step.
type replicaStep struct {
	Seq  int64
	Hash string
	Kind string
	Data struct {
		Event, ToolUseID string
		Actor            struct {
			Attested struct{ By, Tenant, Subject string }
		} `json:"logbook.actor"`
	}
}

// seal ends session (the c-th client's, sending with auth) and checks
// its record, read with readAuth from another live replica than the one
// that sealed it: it passes logbook-verify (with verifyArgs) at level
// server, every event a replica acknowledged is in it, and every
// checkpoint any replica signed (db's logbook_checkpoints) lies on its
// chain (0 forks). It returns the record's steps.
func (r *replicas) seal(db *sql.DB, c int, session, auth, readAuth, key string, verifyArgs ...string) []replicaStep {
	t := r.t
	t.Helper()
	end, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": "SessionEnd", "reason": "other", "cwd": "/work/project"})
	r.sendRetry(c%3, auth, end)
	from := []int{0, 2}[c%2]
	rec := readWith(t, r.url(from)+"/v1/sessions/"+session+"/record", readAuth)
	cp := readWith(t, r.url(2-from)+"/v1/sessions/"+session+"/record-checkpoint", readAuth)
	dir := t.TempDir()
	recFile, cpFile := filepath.Join(dir, session+".json"), filepath.Join(dir, session+".cp")
	os.WriteFile(recFile, rec, 0o644)
	os.WriteFile(cpFile, cp, 0o644)
	args := append([]string{"--json", "--pubkey", key + ".pub", "--checkpoint", cpFile, "--checkpoint-key", key + ".vkey"}, verifyArgs...)
	out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), append(args, recFile)...).Output()
	var v struct {
		OK    bool
		Level string
		Code  string
	}
	if json.Unmarshal(out, &v); !v.OK || v.Level != "server" {
		t.Fatalf("%s: %s", session, out)
	}
	var rr struct{ Steps []replicaStep }
	if err := json.Unmarshal(rec, &rr); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, s := range rr.Steps {
		if s.Data.Event == "PreToolUse" || s.Data.Event == "PostToolUse" {
			have[s.Data.Event+" "+s.Data.ToolUseID] = true
		}
	}
	r.ackMu.Lock()
	acks := r.acks[session]
	r.ackMu.Unlock()
	for _, i := range acks {
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
	defer rows.Close()
	n := 0
	for rows.Next() {
		var note []byte
		rows.Scan(&note)
		text, _, _ := bytes.Cut(note, []byte("\n\n"))
		c, err := checkpoint.Parse(append(text, '\n'))
		if err != nil || c.Size > int64(len(rr.Steps)) || rr.Steps[c.Size-1].Hash != c.Tip {
			t.Fatalf("%s: checkpoint off the record's chain (a fork): %s (%v)", session, text, err)
		}
		n++
	}
	if n < len(acks) {
		t.Fatalf("%s: %d checkpoints for %d events", session, n, len(acks))
	}
	return rr.Steps
}

// readWith GETs a read route with the bearer auth, failing the test on
// anything but 200.
func readWith(t *testing.T, url, auth string) []byte {
	t.Helper()
	status, b := bearerCall(t, "GET", url, auth, nil)
	if status != 200 {
		t.Fatalf("GET %s: %d %s", url, status, strings.TrimSpace(b))
	}
	return []byte(b)
}

// bearerCall sends a request with the bearer auth (none when "") and
// returns the answer's status and body.
func bearerCall(t *testing.T, method, url, auth string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
