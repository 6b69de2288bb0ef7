package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// startWitness runs logbook-witness on addr for the log key.
func startWitness(t testing.TB, addr, state, key, logKey string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "logbook-witness"), "--listen", addr, "--state", state, "--key", key, "--log-key", logKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if resp, err := http.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
			return cmd
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("logbook-witness did not start: %s", stderr.String())
	return nil
}

// TestLogKill9: a server with a transparency log and a witness, killed
// with SIGKILL at random moments while 8 clients record sessions and end
// them; the witness is killed and restarted too. Every SessionEnd the
// server acknowledged gets, after restarts, a proof of logging that
// logbook-verify accepts at level logged with nothing listening; the log
// never rewrote its past (--log-consistency from the first checkpoint).
func TestLogKill9(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newServerKey(t, dir)
	data := filepath.Join(dir, "data")
	addr, waddr := freePort(t), freePort(t)
	wkey := filepath.Join(dir, "w.key")
	if out, err := exec.Command(filepath.Join(bin, "logbook-witness"), "--new-key", wkey, "--name", "witness.e2e").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	wvkey, _ := os.ReadFile(wkey + ".vkey")
	out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--verifier-key", "--key", key, "--name", "e2e.example/log").Output()
	if err != nil {
		t.Fatal(err)
	}
	logKey := strings.TrimSpace(string(out))
	wstate := filepath.Join(dir, "wstate")
	witness := startWitness(t, waddr, wstate, wkey, logKey)
	serverPolicy := filepath.Join(dir, "witnesses.policy")
	os.WriteFile(serverPolicy, []byte(fmt.Sprintf("witness w1 %s http://%s\nquorum w1\n", strings.TrimSpace(string(wvkey)), waddr)), 0o644)
	policy := filepath.Join(dir, "verify.policy")
	os.WriteFile(policy, []byte(fmt.Sprintf("log %s\nwitness w1 %s\nquorum w1\n", logKey, strings.TrimSpace(string(wvkey)))), 0o644)

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 12))
	var mu sync.Mutex
	sealed := []string{} // sessions whose SessionEnd was acknowledged
	var seq atomic.Int64
	var firstCP []byte
	rounds := 4
	for round := 0; round < rounds; round++ {
		s := startServer(t, addr, data, key, nil, "--log-witnesses", serverPolicy)
		if round == 2 { // the witness goes down for a round, and comes back
			witness.Process.Signal(syscall.SIGKILL)
			witness.Wait()
		}
		if round == 3 {
			witness = startWitness(t, waddr, wstate, wkey, logKey)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		for c := 0; c < 8; c++ {
			wg.Go(func() {
				cl := &http.Client{Timeout: 10 * time.Second}
				for !stop.Load() {
					session := fmt.Sprintf("lk-%d", seq.Add(1))
					ok := true
					for i := 0; i < 6 && ok; i++ {
						code, err := postEvent(cl, s.url, toolEvent(session, i))
						ok = err == nil && code == 200
					}
					if !ok {
						continue
					}
					end := []byte(`{"session_id":"` + session + `","hook_event_name":"SessionEnd","reason":"exit"}`)
					if code, err := postEvent(cl, s.url, end); err == nil && code == 200 {
						mu.Lock()
						sealed = append(sealed, session)
						mu.Unlock()
					}
				}
			})
		}
		time.Sleep(time.Duration(1200+r.IntN(800)) * time.Millisecond)
		// The first published checkpoint that holds leaves (the empty
		// tree's proves nothing about edited tiles). On a loaded machine
		// the first round may end before one is published: a later round
		// takes it.
		if firstCP == nil {
			resp, err := readGet(s.url + "/v1/log/checkpoint")
			if err == nil && resp.StatusCode == 200 {
				if b, _ := readAll(resp); len(strings.Split(string(b), "\n")) > 1 && strings.Split(string(b), "\n")[1] != "0" {
					firstCP = b
				}
			}
		}
		s.cmd.Process.Signal(syscall.SIGKILL)
		s.cmd.Wait()
		stop.Store(true)
		wg.Wait()
	}
	// The last start resumes the provers; wait for every acknowledged seal.
	s := startServer(t, addr, data, key, nil, "--log-witnesses", serverPolicy)
	deadline := time.Now().Add(90 * time.Second)
	missing := sealed
	for time.Now().Before(deadline) && len(missing) > 0 {
		var still []string
		for _, id := range missing {
			if _, err := os.Stat(filepath.Join(data, id+".record.tlog-proof")); err != nil {
				still = append(still, id)
			}
		}
		missing = still
		time.Sleep(250 * time.Millisecond)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged seals have no proof of logging: %v\n%s", len(missing), len(sealed), missing[:min(5, len(missing))], s.stderr)
	}
	lastCP := fetch(t, s.url+"/v1/log/checkpoint")
	// Offline: nothing listens any more.
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
	witness.Process.Signal(syscall.SIGKILL)
	witness.Wait()
	for _, id := range sealed {
		rec := filepath.Join(data, id+".record.json")
		out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", key+".pub", "--log-policy", policy, rec).Output()
		var v cpVerdict
		if err := json.Unmarshal(out, &v); err != nil || !v.OK || v.level() != "logged" {
			t.Fatalf("%s: %s", id, out)
		}
	}
	if firstCP == nil {
		t.Fatal("no log checkpoint with leaves was published in any round")
	}
	old, cur := filepath.Join(dir, "old.cp"), filepath.Join(dir, "new.cp")
	os.WriteFile(old, firstCP, 0o644)
	os.WriteFile(cur, lastCP, 0o644)
	out, err = exec.Command(filepath.Join(bin, "logbook-verify"), "--log-consistency", "--log-policy", policy,
		"--log-tiles", filepath.Join(data, "log"), old, cur).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "OK consistent") {
		t.Fatalf("consistency: %v %s", err, out)
	}
	// A rewritten past: the same log with every hash tile edited.
	edited := filepath.Join(dir, "edited")
	if out, err := exec.Command("cp", "-a", filepath.Join(data, "log"), edited).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	filepath.Walk(filepath.Join(edited, "tile"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.Contains(p, "entries") {
			if b, _ := os.ReadFile(p); len(b) > 0 {
				b[len(b)-1] ^= 1
				os.WriteFile(p, b, 0o644)
			}
		}
		return nil
	})
	refused, err := exec.Command(filepath.Join(bin, "logbook-verify"), "--log-consistency", "--log-policy", policy,
		"--log-tiles", edited, old, cur).Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.HasPrefix(string(refused), "REFUSED LOG_PROOF_INVALID") {
		t.Fatalf("edited tiles: %v %s", err, refused)
	}
	report(t, "log: edited tiles: "+strings.TrimSpace(string(refused)))
	// A re-created store: the witness will not cosign the new log's first
	// checkpoint, so the server refuses to start on it.
	os.RemoveAll(filepath.Join(data, "log"))
	startWitness(t, waddr, wstate, wkey, logKey)
	cmd := exec.Command(filepath.Join(bin, "logbook-server"), "--listen", addr, "--data", data, "--key", key, "--name", "e2e.example", "--log-witnesses", serverPolicy)
	done := make(chan []byte, 1)
	go func() { out, _ := cmd.CombinedOutput(); done <- out }()
	select {
	case out := <-done:
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "witness policy was not satisfied") {
			t.Fatalf("re-created store: exit %d %s", cmd.ProcessState.ExitCode(), out)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server started on a re-created log")
	}
	report(t, "log: re-created store: the witness refuses its first checkpoint and logbook-server exits 1")
	report(t, fmt.Sprintf("log kill -9: %d server kills, the witness killed for a round; %d acknowledged seals, every one logged and verified offline at level logged; %s",
		rounds, len(sealed), strings.TrimSpace(string(out))))
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err := b.ReadFrom(resp.Body)
	return b.Bytes(), err
}

// TestLogFixturesCLI: logbook-verify gives every proof-of-logging fixture
// (testdata/records/log) the code or level its name says, with its options
// as --pubkey, --log-policy and --log-proof.
func TestLogFixturesCLI(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../testdata/records/log/*.json")
	if len(files) < 10 {
		t.Fatalf("%d log fixtures", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		var o struct {
			Pubkey              []string
			LogPolicy, LogProof string
		}
		b, err := os.ReadFile(filepath.Join("../testdata/records/log/options", name))
		if err != nil || json.Unmarshal(b, &o) != nil {
			t.Fatalf("%s: options: %v", name, err)
		}
		args := []string{"--json", "--log-policy", filepath.Join("../testdata", o.LogPolicy), "--log-proof", filepath.Join("../testdata", o.LogProof)}
		for _, p := range o.Pubkey {
			args = append(args, "--pubkey", filepath.Join("../testdata", p))
		}
		out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), append(args, f)...).Output()
		var v cpVerdict
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s: %q", name, out)
		}
		rest := strings.TrimSuffix(name, ".json")
		switch {
		case strings.HasPrefix(rest, "good_"):
			if !v.OK || v.level() != "logged" {
				t.Errorf("%s: %s", name, out)
			}
		case v.OK || !strings.HasPrefix(rest, "fail_"+v.code()+"_"):
			t.Errorf("%s: got %q (%s)", name, v.code(), v.Detail)
		}
	}
}
