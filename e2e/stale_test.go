package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStaleCheckpointRefused: the agent keeps an early SessionEnd's record
// and its proof of logging, goes on working (the server reseals), and
// hands over the early pair. Without the log's later leaves the verifier
// cannot know: it accepts at level logged and says freshness was not
// checked. With --log-tiles (the server's URL, or a copy of the log) it
// reads every leaf after the record's, finds the session's later
// checkpoint and refuses the early record (TRUNCATED); the latest record
// passes with nothing to warn about.
func TestStaleCheckpointRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newServerKey(t, dir)
	data := filepath.Join(dir, "data")
	addr := freePort(t)
	out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--verifier-key", "--key", key, "--name", "e2e.example/log").Output()
	if err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(dir, "verify.policy")
	os.WriteFile(policy, []byte(fmt.Sprintf("log %s\nquorum none\n", strings.TrimSpace(string(out)))), 0o644)
	s := startServer(t, addr, data, key, nil, "--log-checkpoint-interval", "200ms")
	const id = "stale-1"
	send := func(from, to int) { sendSession(t, s.url, id, from, to) }
	proofFile := filepath.Join(data, id+".record.tlog-proof")
	waitProof := func(not []byte) []byte {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if b, err := os.ReadFile(proofFile); err == nil && !bytes.Equal(b, not) {
				return b
			}
		}
		t.Fatalf("no new proof of logging:\n%s", s.stderr)
		return nil
	}
	send(0, 4)
	keep := t.TempDir()
	kept := filepath.Join(keep, "r.json")
	os.WriteFile(filepath.Join(keep, "r.tlog-proof"), waitProof(nil), 0o644)
	os.WriteFile(kept, fetch(t, s.url+"/v1/sessions/"+id+"/record"), 0o644)
	// The session goes on after its SessionEnd.
	first, _ := os.ReadFile(proofFile)
	send(4, 10)
	waitProof(first)
	verify := func(rec string, extra ...string) (string, error) {
		args := append([]string{"--pubkey", key + ".pub", "--log-policy", policy}, extra...)
		cmd := exec.Command(filepath.Join(bin, "logbook-verify"), append(args, rec)...)
		cmd.Env = append(os.Environ(), "LOGBOOK_SERVER_READ_TOKEN="+s.readToken) // the server's tiles need it
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	got, err := verify(kept)
	if err != nil || !strings.Contains(got, "level=logged") || !strings.Contains(got, "warning: freshness not checked") {
		t.Fatalf("the early record without the log's later leaves: want OK level=logged and the freshness warning: %v\n%s", err, got)
	}
	var refused string
	for _, tiles := range []string{s.url + "/v1/log/", filepath.Join(data, "log")} {
		refused, err = verify(kept, "--log-tiles", tiles)
		if err == nil || !strings.HasPrefix(refused, "REFUSED TRUNCATED") || !strings.Contains(refused, "not the session's latest") {
			t.Fatalf("--log-tiles %s: the early record was not refused: %v\n%s", tiles, err, refused)
		}
	}
	// A copy of the log with a later leaf edited cannot clear the record:
	// the leaf no longer hashes to the log's tree; freshness is then not
	// checked, and the verifier stops with exit 2.
	edited := filepath.Join(t.TempDir(), "log")
	if out, err := exec.Command("cp", "-r", filepath.Join(data, "log"), edited).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	bundles, _ := filepath.Glob(filepath.Join(edited, "tile", "entries", "*"))
	var files []string
	for _, b := range bundles {
		filepath.Walk(b, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Fatal("no entry bundle in the log")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(f, bytes.ReplaceAll(b, []byte("stale-1"), []byte("stale-2")), 0o644)
	}
	if out, err := verify(kept, "--log-tiles", edited); err == nil || !strings.Contains(out, "freshness not checked") {
		t.Fatalf("an edited log copy: %v\n%s", err, out)
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("an edited log copy: want exit 2: %v\n%s", err, out)
	}
	latest := filepath.Join(data, id+".record.json")
	got2, err := verify(latest, "--log-tiles", s.url+"/v1/log/")
	if err != nil || !strings.Contains(got2, "level=logged") || strings.Contains(got2, "warning: freshness") {
		t.Fatalf("the latest record with --log-tiles: %v\n%s", err, got2)
	}
	report(t, "stale: the early record without --log-tiles:\n"+got+"with --log-tiles: "+strings.TrimSpace(refused))
}
