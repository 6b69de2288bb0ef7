package logbook_test

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/synth"
	"github.com/logbook-project/logbook/internal/testkit/testpki"
	"github.com/logbook-project/logbook/journal"
)

// sealBoth seals the journal of session in dir twice, from two copies of
// the directory: with Seal (the record in memory) and with SealFile (the
// record streamed to a file). It returns both records and both journals
// after sealing.
type sealedTwice struct{ mem, file, memJournal, fileJournal []byte }

func sealBoth(t *testing.T, dir, session string, opt logbook.SealOptions) sealedTwice {
	t.Helper()
	a, b := copyDir(t, dir), copyDir(t, dir)
	sealed, err := logbook.Seal(a, session, key, opt)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(b, "out", "r.json")
	os.Mkdir(filepath.Dir(out), 0o700)
	sf, err := logbook.SealFile(b, session, key, out, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Steps != sealed.Steps || sf.TornCut != sealed.TornCut || strings.Join(sf.Unfinished, ",") != strings.Join(sealed.Unfinished, ",") || sf.Record != nil {
		t.Fatalf("SealFile %+v, Seal %+v", sf, sealed)
	}
	if left, _ := filepath.Glob(filepath.Join(b, "out", ".*")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	return sealedTwice{sealed.Record, read(t, out), read(t, filepath.Join(a, session+".steps.jsonl")), read(t, filepath.Join(b, session+".steps.jsonl"))}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			if err := os.WriteFile(filepath.Join(to, e.Name()), read(t, filepath.Join(dir, e.Name())), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return to
}

func same(t *testing.T, s sealedTwice) {
	t.Helper()
	mem, file, memJ, fileJ := s.mem, s.file, s.memJournal, s.fileJournal
	if !bytes.Equal(mem, file) {
		t.Fatalf("SealFile's record (%d bytes, sha256 %x) is not Seal's (%d bytes, sha256 %x)", len(file), sha256.Sum256(file), len(mem), sha256.Sum256(mem))
	}
	if !bytes.Equal(memJ, fileJ) {
		t.Fatal("the journals differ after sealing")
	}
	if _, err := logbook.Verify(file, logbook.VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
}

// SealFile writes Seal's bytes, for every synthetic session the project
// keeps (Claude Code's four and one per harness dialect), recorded from
// their hook payloads; with a goal, an end time, a signer identity and a
// timestamp as well.
func TestSealFileSameBytesSynth(t *testing.T) {
	t.Parallel()
	var sessions []synth.Session
	for _, n := range synth.Names {
		s, _ := synth.Claude(n)
		sessions = append(sessions, s)
	}
	for _, h := range synth.Harnesses {
		if s, ok := synth.Dialect(h); ok {
			sessions = append(sessions, s)
		}
	}
	leaf := testpki.Issue(nil, testpki.Spec{Name: "sealer", Key: key, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(4e9, 0)})
	tsa := testpki.Issue(nil, testpki.Spec{Name: "tsa", NotBefore: time.Unix(0, 0), NotAfter: time.Unix(4e9, 0)})
	stamp := func(sig []byte) ([]byte, error) {
		sum := sha256.Sum256(sig)
		return testpki.Token(testpki.TokenSpec{TSA: tsa, Imprint: sum[:], Time: time.Unix(1.8e9, 0), Serial: 7}), nil
	}
	for _, s := range sessions {
		t.Run(s.Name+"-"+s.Harness, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for i, ev := range s.Events {
				eo := journal.EventOptions{Harness: s.Harness, Now: func() string { return s.Times[i] }, Cwd: "/w"}
				if s.Config != nil {
					eo.Event = s.Config[i]
				}
				if _, err := journal.Record(dir, ev, eo); err != nil {
					t.Fatal(err)
				}
			}
			same(t, sealBoth(t, dir, s.ID, logbook.SealOptions{Now: time.Unix(1.9e9, 0)}))
			same(t, sealBoth(t, dir, s.ID, logbook.SealOptions{
				Goal: "ship it", EndedAt: time.Unix(1.9e9, 0), Now: time.Unix(1.9e9, 0),
				Certificates: [][]byte{leaf.DER()}, Timestamp: stamp,
			}))
		})
	}
}

// SealFile writes Seal's bytes for the steps of every good record in
// testdata/records (unicode, escaped keys, -0, wide data, ...), written
// into a journal; and for a journal with a torn tail and an unfinished
// tool call, whose note and cut both seals add alike.
func TestSealFileSameBytesFixtures(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/records/good_*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		rec, err := strictjson.Parse(read(t, f), strictjson.Options{MaxDepth: format.MaxDepth})
		if err != nil {
			t.Fatal(err)
		}
		steps := rec.Get("steps")
		if len(steps.Items) == 0 {
			continue // a journal with no steps is not sealed
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := t.TempDir()
			hdr := strictjson.Obj(
				strictjson.Member{Key: "cwd", Value: strictjson.Str("/w")},
				strictjson.Member{Key: "format", Value: strictjson.Str(format.Journal)},
				strictjson.Member{Key: "harness", Value: strictjson.Str("claude-code")},
				strictjson.Member{Key: "session", Value: strictjson.Str("s1")},
			)
			text, err := jcs.Append(nil, &hdr)
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, '\n')
			for i := range steps.Items {
				if text, err = jcs.Append(text, &steps.Items[i]); err != nil {
					t.Fatal(err)
				}
				text = append(text, '\n')
			}
			if err := os.WriteFile(filepath.Join(dir, "s1.steps.jsonl"), text, 0o600); err != nil {
				t.Fatal(err)
			}
			same(t, sealBoth(t, dir, "s1", logbook.SealOptions{Goal: "fixture", Now: time.Unix(1.9e9, 0)}))
		})
	}
	t.Run("torn-unfinished", func(t *testing.T) {
		dir := t.TempDir()
		for _, p := range []string{
			`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"make"}}`,
			`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t2","tool_input":{"file_path":"a"}}`,
			`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t2","tool_input":{"file_path":"a"},"tool_response":"x"}`,
		} {
			if _, err := journal.Record(dir, []byte(p), journal.EventOptions{Cwd: "/w", Now: func() string { return "2026-05-01T00:00:00Z" }}); err != nil {
				t.Fatal(err)
			}
		}
		f, err := os.OpenFile(filepath.Join(dir, "s1.steps.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"at":"2026-05-01T00:00:0`) // a writer killed mid-line
		f.Close()
		s := sealBoth(t, dir, "s1", logbook.SealOptions{Now: time.Unix(1.9e9, 0)})
		same(t, s)
		if !bytes.Contains(s.file, []byte(`"toolUseIds":["t1"]`)) || !bytes.Contains(s.file, []byte("torn")) {
			t.Fatal("the note or the cut is missing")
		}
	})
}

// A record that does not verify is never placed, and leaves nothing
// behind; a place that fails leaves nothing either.
func TestSealFileLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := journal.Record(dir, []byte(`{"session_id":"s1","hook_event_name":"SessionStart"}`), journal.EventOptions{Cwd: "/w"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o", "r.json")
	if _, err := logbook.SealFile(dir, "s1", key, out, logbook.SealOptions{}, nil); err == nil || !strings.Contains(err.Error(), "does not exist (create it first") {
		t.Fatalf("missing directory: %v", err)
	}
	os.Mkdir(filepath.Dir(out), 0o700)
	boom := os.ErrPermission
	_, err := logbook.SealFile(dir, "s1", key, out, logbook.SealOptions{}, func(tmp, out string) error {
		if _, err := os.Stat(tmp); err != nil {
			t.Errorf("place was given %s: %v", tmp, err)
		}
		return boom
	})
	if err != boom {
		t.Fatalf("err %v", err)
	}
	// A key whose public half is not its seed's: refused, nothing written.
	bad := append([]byte(nil), key...)
	bad[40] ^= 1
	if _, err := logbook.SealFile(dir, "s1", bad, out, logbook.SealOptions{}, nil); err == nil {
		t.Fatal("sealed with a damaged key")
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}
