package e2e

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/synth"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// ownSessions lists the project's own Claude Code sessions (internal/testkit/synth),
// but "long": its length adds time, not cases (the demo and the
// benchmarks replay long sessions).
func ownSessions(t *testing.T) []session {
	var out []session
	for _, name := range synth.Names {
		if name != "long" {
			out = append(out, synthSession(t, name))
		}
	}
	return out
}

func newKey(t *testing.T, dir, name string) (key, pub string) {
	key = filepath.Join(dir, name+".key")
	run(t, nil, "logbook-seal", "--new-key", key)
	return key, key + ".pub"
}

// eventKey identifies an event so that each can be found as a step.
func eventKey(name, toolUseID string) string { return name + "|" + toolUseID }

type payloadHead struct {
	Session   string `json:"session_id"`
	Event     string `json:"hook_event_name"`
	ToolUseID string `json:"tool_use_id"`
}

func head(ev []byte) payloadHead {
	var h payloadHead
	_ = json.Unmarshal(ev, &h) // test-side reading only
	return h
}

// TestSessions replays each of the project's own sessions in order and
// with 8 concurrent replayers, seals, verifies, and finds every event as a
// step exactly once; no body text appears in any record.
func TestSessions(t *testing.T) {
	t.Parallel()
	replaySessions(t, ownSessions(t))
}

// TestRealSessions does the same with the real sessions of the shared data
// (conformance): public transcripts converted on the fly, and payload
// sequences captured from Claude Code.
func TestRealSessions(t *testing.T) {
	t.Parallel()
	replaySessions(t, corpusSessions(t))
}

func replaySessions(t *testing.T, sessions []session) {
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	for _, s := range sessions {
		for _, workers := range []int{1, 8} {
			s, workers := s, workers
			t.Run(fmt.Sprintf("%s/workers=%d", s.name, workers), func(t *testing.T) {
				dir := t.TempDir()
				replay(t, s, dir, workers)
				want := map[string]map[string]int{} // session → event key → count
				for _, ev := range s.events {
					h := head(ev)
					if want[h.Session] == nil {
						want[h.Session] = map[string]int{}
					}
					want[h.Session][eventKey(h.Event, h.ToolUseID)]++
				}
				for id, counts := range want {
					out := filepath.Join(dir, id+".record.json")
					run(t, nil, "logbook-seal", "--dir", dir, "--session", id, "--key", key, "--out", out, "--goal", "replay")
					v := verify(t, out, pub)
					if !v.OK {
						t.Fatalf("%s: %s %s", id, v.code(), v.Detail)
					}
					rec := readRecord(t, out)
					got := map[string]int{}
					for i, st := range rec.Steps {
						if st.Seq != i {
							t.Fatalf("seq %d at %d", st.Seq, i)
						}
						ev, _ := st.Data["event"].(string)
						if strings.HasPrefix(ev, "logbook.") {
							continue // a note the sealer added, checked elsewhere
						}
						id, _ := st.Data["toolUseId"].(string)
						got[eventKey(ev, id)]++
					}
					if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(counts)) {
						t.Errorf("%s: steps do not match events one to one\n got %v\nwant %v", id, sorted(got), sorted(counts))
					}
					t.Logf("%s (%d replayers): %d events → %d steps, verified OK", id, workers, len(s.events), len(rec.Steps))
					if int64(len(rec.Steps)) != *v.StepCount {
						t.Errorf("stepCount %d, steps %d", *v.StepCount, len(rec.Steps))
					}
					checkNoBodies(t, out, s.events)
				}
			})
		}
	}
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(out)
	return out
}

// checkNoBodies: no string of 24 bytes or more from any body (tool input
// other than the fields kept on purpose, tool response, prompt, final
// message, error) appears in the record's clear text.
func checkNoBodies(t *testing.T, recordPath string, events [][]byte) {
	data, err := os.ReadFile(recordPath)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := strictjson.Parse(data, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var clear strings.Builder
	collectStrings(rec, &clear)
	text := clear.String()
	keep := map[string]bool{"command": true, "file_path": true, "notebook_path": true, "path": true, "pattern": true, "url": true, "subagent_type": true}
	checked := 0
	for _, ev := range events {
		v, err := strictjson.Parse(ev, strictjson.Options{Lenient: true})
		if err != nil {
			t.Fatal(err)
		}
		// Metadata kept on purpose (cwd, paths, commands) may also occur
		// inside a body; such strings prove nothing either way.
		kept := map[string]bool{}
		if cwd, ok := v.GetString("cwd"); ok {
			kept[cwd] = true
		}
		walkStrings(v, "", func(key, s string) {
			if keep[key] {
				kept[s] = true
			}
		})
		for _, k := range []string{"tool_input", "tool_response", "prompt", "last_assistant_message", "error", "message"} {
			b := v.Get(k)
			if b == nil {
				continue
			}
			walkStrings(b, "", func(key, s string) {
				if len(s) < 24 || keep[key] || kept[strings.TrimRight(s, "/")] || strings.Contains(s, "\ufffd") {
					return
				}
				checked++
				if strings.Contains(text, s) {
					t.Errorf("body text %.50q… (from %s) appears in the record", s, k)
				}
			})
		}
	}
	if checked == 0 && len(events) > 10 {
		t.Errorf("no body strings were checked: the check tests nothing")
	}
	t.Logf("%s: %d body strings (≥ 24 bytes) from %d events, none in the record", filepath.Base(recordPath), checked, len(events))
}

func collectStrings(v *strictjson.Value, out *strings.Builder) {
	switch v.Kind {
	case strictjson.String:
		out.WriteString(v.Str)
		out.WriteByte(0)
	case strictjson.Array:
		for i := range v.Items {
			collectStrings(&v.Items[i], out)
		}
	case strictjson.Object:
		for i := range v.Members {
			out.WriteString(v.Members[i].Key)
			out.WriteByte(0)
			collectStrings(&v.Members[i].Value, out)
		}
	}
}

func walkStrings(v *strictjson.Value, key string, f func(key, s string)) {
	switch v.Kind {
	case strictjson.String:
		f(key, v.Str)
	case strictjson.Array:
		for i := range v.Items {
			walkStrings(&v.Items[i], key, f)
		}
	case strictjson.Object:
		for i := range v.Members {
			walkStrings(&v.Members[i].Value, v.Members[i].Key, f)
		}
	}
}

// TestTamper seals a session, then edits, drops, swaps, cuts, changes
// the goal and re-signs, and expects the exact refusal code for each.
func TestTamper(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	s := synthSession(t, "tool_heavy")
	dir := filepath.Join(work, "sessions")
	replay(t, s, dir, 1)
	id := head(s.events[0]).Session
	good := filepath.Join(work, "good.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", id, "--key", key, "--out", good, "--goal", "tamper test")
	if v := verify(t, good, pub); !v.OK {
		t.Fatalf("good record refused: %+v", v)
	}
	orig, _ := os.ReadFile(good)
	otherPriv, _ := readPriv(t, newKeyFile(t, work, "other"))
	cases := []struct {
		name  string
		edits []tamper.Edit
		want  string
	}{
		{"edit a step", []tamper.Edit{tamper.EditSummary(3, "PostToolUse Bash: rm -rf /")}, "CHAIN_BROKEN"},
		{"drop a step", []tamper.Edit{tamper.Drop(2)}, "STEP_OUT_OF_ORDER"},
		{"drop and renumber", []tamper.Edit{tamper.Drop(2), tamper.Renumber}, "CHAIN_BROKEN"},
		{"swap two steps", []tamper.Edit{tamper.Swap(2, 3)}, "STEP_OUT_OF_ORDER"},
		{"cut the tail", []tamper.Edit{tamper.CutTail(2)}, "STEP_COUNT_MISMATCH"},
		{"cut the tail, fix the count", []tamper.Edit{tamper.CutTail(2), tamper.FixCountAndTip}, "SIGNATURE_INVALID"},
		{"change the goal", []tamper.Edit{tamper.SetSession("goal", "nothing to see")}, "SIGNATURE_INVALID"},
		{"re-sign with another key", []tamper.Edit{tamper.SetSession("goal", "nothing to see"), tamper.Resign(otherPriv)}, "SIGNER_NOT_TRUSTED"},
	}
	for _, c := range cases {
		b, err := tamper.Apply(orig, c.edits...)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(work, strings.ReplaceAll(c.name, " ", "_")+".json")
		os.WriteFile(f, b, 0o644)
		if v := verify(t, f, pub); v.code() != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.name, v.code(), v.Detail, c.want)
		}
	}
	// The re-signed record is sound on its own: integrity, not authorship.
	b, _ := tamper.Apply(orig, tamper.Resign(otherPriv))
	f := filepath.Join(work, "resigned_unpinned.json")
	os.WriteFile(f, b, 0o644)
	if v := verify(t, f); !v.OK {
		t.Errorf("re-signed record without --pubkey: want OK (unpinned), got %+v", v)
	}
	out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), f).Output()
	if !bytes.Contains(out, []byte("signer=unpinned")) || !bytes.Contains(out, []byte("integrity only")) {
		t.Errorf("unpinned success must say so plainly: %q", out)
	}
	if v := verify(t, f); !strings.Contains(v.Detail, "not pinned") {
		t.Errorf("--json detail must say the signer is not pinned: %q", v.Detail)
	}
	if v := verify(t, good, pub); !strings.Contains(v.Detail, "signer pinned") {
		t.Errorf("--json detail must say the signer is pinned: %q", v.Detail)
	}
	// An unreadable file: exit 2, and still one JSON object on stdout.
	cmd := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", filepath.Join(work, "missing.json"))
	out, err := cmd.Output()
	var v verdict
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || json.Unmarshal(out, &v) != nil || v.OK || v.Code != nil {
		t.Errorf("missing file: %v %q", err, out)
	}
	// An end time before the last step is refused at seal.
	early := exec.Command(filepath.Join(bin, "logbook-seal"), "--dir", dir, "--session", id, "--key", key,
		"--out", filepath.Join(work, "early.json"), "--ended-at", "2020-01-01T00:00:00Z")
	if out, err := early.CombinedOutput(); err == nil || !strings.Contains(string(out), "before the last step") {
		t.Errorf("--ended-at before the last step: %v %s", err, out)
	}
}

func newKeyFile(t *testing.T, dir, name string) string {
	k, _ := newKey(t, dir, name)
	return k
}

func readPriv(t *testing.T, path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := keys.ParsePrivateKeyPEM(b)
	if err != nil {
		t.Fatal(err)
	}
	return k, nil
}
