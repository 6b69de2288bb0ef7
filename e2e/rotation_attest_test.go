package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerAttestationAfterRotation: a session sealed and logged under
// the server's first key keeps its bundle across a key rotation, and one
// whose bundle was not yet written (a kill between the proof and the
// bundle) gets it at the restart under the new key, signed by the key in
// force (the only one the server holds). logbook-verify accepts each:
// the record under the key that sealed it (the old key pinned, or the
// new one reached through --key-rotations), the proof under the log's
// keys, the bundle under the key that signed it.
func TestServerAttestationAfterRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	oldKey := newServerKey(t, dir)
	data := filepath.Join(dir, "data")
	addr := freePort(t)
	s := startServer(t, addr, data, oldKey, nil)
	for _, session := range []string{"ra-kept", "ra-late"} {
		sendSession(t, s.url, session, 0, 4)
	}
	for _, session := range []string{"ra-kept", "ra-late"} {
		waitFile(t, filepath.Join(data, session+".record.intoto.json"))
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
	os.Remove(filepath.Join(data, "ra-late.record.intoto.json")) // killed between the proof and the bundle

	newKey := filepath.Join(dir, "new.key")
	for _, args := range [][]string{{"--new-key", newKey, "--name", "e2e.example"},
		{"--rotate-key", newKey, "--key", oldKey, "--data", data, "--name", "e2e.example"}} {
		if out, err := exec.Command(filepath.Join(bin, "logbook-server"), args...).CombinedOutput(); err != nil {
			t.Fatalf("logbook-server %v: %v %s", args, err, out)
		}
	}
	s = startServer(t, addr, data, newKey, nil)
	waitFile(t, filepath.Join(data, "ra-late.record.intoto.json"))
	if strings.Contains(s.stderr.String(), "attestation") {
		t.Fatalf("the restart logged: %s", s.stderr)
	}

	// The log's key is the server's: a reader's policy lists both.
	var logKeys []string
	for _, k := range []string{oldKey, newKey} {
		out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--verifier-key", "--key", k, "--name", "e2e.example/log").Output()
		if err != nil {
			t.Fatal(err)
		}
		logKeys = append(logKeys, "log "+strings.TrimSpace(string(out)))
	}
	policy := filepath.Join(dir, "log.policy")
	os.WriteFile(policy, []byte(strings.Join(logKeys, "\n")+"\nquorum none\n"), 0o644)

	check := func(session string, attestor string, trust ...string) {
		t.Helper()
		d := t.TempDir()
		rec := filepath.Join(d, session+".record.json")
		for route, file := range map[string]string{"record": rec, "record-checkpoint": filepath.Join(d, session+".record.checkpoint"),
			"tlog-proof": filepath.Join(d, session+".record.tlog-proof"), "attestation": filepath.Join(d, "bundle.json")} {
			os.WriteFile(file, fetch(t, s.url+"/v1/sessions/"+session+"/"+route), 0o644)
		}
		args := append([]string{"--json"}, trust...)
		args = append(args, "--log-policy", policy, "--attestation-bundle", filepath.Join(d, "bundle.json"), "--attestor-key", attestor, rec)
		out, err := exec.Command(filepath.Join(bin, "logbook-verify"), args...).Output()
		var v cpVerdict
		if jerr := json.Unmarshal(out, &v); jerr != nil || !v.OK || v.level() != "logged" {
			t.Fatalf("%s: logbook-verify %v: %v %s", session, args, err, out)
		}
	}
	rotations := filepath.Join(data, "key-rotations")
	// The bundle written before the rotation: by the old key, kept.
	check("ra-kept", oldKey+".pub", "--pubkey", oldKey+".pub", "--checkpoint-key", oldKey+".vkey")
	// The one written after it: by the key in force; the record and its
	// checkpoint still under the old key, reached from it by the chain.
	check("ra-late", newKey+".pub", "--pubkey", oldKey+".pub", "--checkpoint-key", oldKey+".vkey", "--key-rotations", rotations)
	if out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", oldKey+".pub", "--checkpoint-key", oldKey+".vkey",
		"--log-policy", policy, "--attestation-bundle", filepath.Join(data, "ra-late.record.intoto.json"), "--attestor-key", oldKey+".pub",
		filepath.Join(data, "ra-late.record.json")).Output(); strings.Contains(string(out), `"ok":true`) {
		t.Fatalf("the new key's bundle verifies under the old attestor key: %s", out)
	}
}

// waitFile waits (up to a minute: the log's proof comes after its next
// checkpoint) for a file to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 600; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal(fmt.Sprintf("%s: not written in a minute", path))
}
