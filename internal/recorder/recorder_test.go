package recorder

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/redact"
)

var payload = []byte(`{"session_id":"bench","cwd":"/home/dev/p","permission_mode":"default","hook_event_name":"PreToolUse",` +
	`"tool_name":"Edit","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","tool_input":{"file_path":"/home/dev/p/a.go",` +
	`"old_string":"` + strings.Repeat("x", 400) + `","new_string":"` + strings.Repeat("y", 400) + `"}}`)

// TestRecord: one payload becomes one step in its session's file.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		if _, err := Record(dir, payload, "2026-01-01T00:00:00Z", "/w", Options{}); err != nil {
			t.Fatal(err)
		}
	}
	j, err := journalfile.Open(dir, "bench")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	h, steps, err := j.ReadAll(nil)
	if err != nil || steps.Count != 3 || h.Cwd != "/home/dev/p" || bytes.Contains(steps.JSON, []byte("xxxx")) {
		t.Fatalf("%v %+v %d", err, h, steps.Count)
	}
}

// BenchmarkRecord is record-step's own work for one event, in process:
// parse, digest, redact, lock, read the tail, append. The rest of a hook's
// time is starting the process.
func BenchmarkRecord(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Record(dir, payload, "2026-01-01T00:00:00Z", "/w", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProjectRedaction: DIR/redact.json patterns apply to what is recorded;
// an unusable one still records the step, clear text withheld, and warns.
func TestProjectRedaction(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile("../../testdata/redact/config/good_acme.json")
	os.WriteFile(filepath.Join(dir, redact.ConfigFile), good, 0o600)
	p := []byte(`{"session_id":"cfg","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1",` +
		`"tool_input":{"command":"deploy --seed 918273 acme_0123456789abcdef0123456789abcdef"}}`)
	if _, err := Record(dir, p, "2026-01-01T00:00:00Z", "/w", Options{}); err != nil {
		t.Fatal(err)
	}
	bad, _ := os.ReadFile("../../testdata/redact/config/fail_bad_regexp.json")
	os.WriteFile(filepath.Join(dir, redact.ConfigFile), bad, 0o600)
	_, err := Record(dir, p, "2026-01-01T00:00:01Z", "/w", Options{})
	var w *Warning
	if !errors.As(err, &w) || !strings.Contains(err.Error(), "withheld") {
		t.Fatalf("unusable config: %v", err)
	}
	j, _ := journalfile.Open(dir, "cfg")
	defer j.Close()
	_, steps, err := j.ReadAll(nil)
	if err != nil || steps.Count != 2 {
		t.Fatalf("%v, %d steps", err, steps.Count)
	}
	for _, s := range []string{"918273", "acme_0123"} {
		if bytes.Contains(steps.JSON, []byte(s)) {
			t.Errorf("%q survives: %s", s, steps.JSON)
		}
	}
	if n := bytes.Count(steps.JSON, []byte("deploy --seed [REDACTED]")); n != 2 {
		t.Errorf("the first step should keep the command's shape, in summary and data, the second withhold it (%d): %s", n, steps.JSON)
	}
	if n := bytes.Count(steps.JSON, []byte(`"redaction":"withheld"`)); n != 1 {
		t.Errorf("the withheld step is not marked (%d): %s", n, steps.JSON)
	}
	if !bytes.Contains(steps.JSON, []byte(`"toolUseId":"t1"`)) {
		t.Errorf("withheld step lost its toolUseId")
	}
}

// TestProjectRedactionStaysInItsDirectory: one directory's redact.json
// must not change what another records, even in the same process (the
// rules travel with the call, there is no process-wide setting), and
// events in parallel see only their own directory's rules.
func TestProjectRedactionStaysInItsDirectory(t *testing.T) {
	withCfg, without := t.TempDir(), t.TempDir()
	good, _ := os.ReadFile("../../testdata/redact/config/good_acme.json")
	os.WriteFile(filepath.Join(withCfg, redact.ConfigFile), good, 0o600)
	p := []byte(`{"session_id":"iso","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1",` +
		`"tool_input":{"command":"deploy --seed 918273"}}`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dir := without
			if i%2 == 0 {
				dir = withCfg
			}
			if _, err := Record(dir, p, "2026-01-01T00:00:00Z", "/w", Options{}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	read := func(dir string) []byte {
		j, _ := journalfile.Open(dir, "iso")
		defer j.Close()
		_, steps, err := j.ReadAll(nil)
		if err != nil || steps.Count != 4 {
			t.Fatalf("%v, %d steps", err, steps.Count)
		}
		return steps.JSON
	}
	if got := read(withCfg); bytes.Contains(got, []byte("918273")) {
		t.Errorf("the project's key rule was not applied: %s", got)
	}
	if got := read(without); bytes.Count(got, []byte("--seed 918273")) != 8 {
		t.Errorf("another directory's rules leaked into this one: %s", got)
	}
}

type countingSelf struct{ n int }

func (c *countingSelf) Recorder() *format.Recorder {
	c.n++
	return &format.Recorder{Name: "record-step", Version: "test", SHA256: strings.Repeat("0f", 32)}
}

// TestRecordSelfDescribesOnce: the session's first event names the recorder
// in the header; later events do not ask again.
func TestRecordSelfDescribesOnce(t *testing.T) {
	dir := t.TempDir()
	self := &countingSelf{}
	for i := 0; i < 4; i++ {
		if _, err := Record(dir, payload, "2026-01-01T00:00:00Z", "/w", Options{Self: self}); err != nil {
			t.Fatal(err)
		}
	}
	if self.n != 1 {
		t.Fatalf("described %d times in 4 events", self.n)
	}
	j, err := journalfile.Open(dir, "bench")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	h, _, err := j.ReadAll(nil)
	if err != nil || h.Recorder == nil || h.Recorder.Name != "record-step" {
		t.Fatalf("%v %+v", err, h)
	}
}

// TestSelf: the running program (here the test binary) is hashed once.
func TestSelf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(exe)
	sum := sha256.Sum256(b)
	var warned []string
	s := &Self{Name: "record-step", Warn: func(m string) { warned = append(warned, m) }}
	r := s.Recorder()
	if r == nil || r.SHA256 != hex.EncodeToString(sum[:]) || r.Name != "record-step" || r.Version == "" || len(warned) > 0 {
		t.Fatalf("%+v %v", r, warned)
	}
	if s.Recorder() != r {
		t.Error("described twice")
	}
	if _, err := Describe("x", "/nonexistent/binary"); err == nil {
		t.Error("Describe of a missing file")
	}
}

// BenchmarkDescribe is the once-per-session cost of session.recorder:
// hashing an executable (this test binary; record-step is about 3.5 MB).
func BenchmarkDescribe(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(exe)
	b.SetBytes(st.Size())
	for i := 0; i < b.N; i++ {
		if _, err := Describe("record-step", exe); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReservedEvent: a payload naming an event in the logbook.*
// namespace (in any case, as the hook's event name or as what it maps
// to) is refused as EVENT_RESERVED and touches no file; a name that only
// starts like it ("logbookish") is recorded.
func TestReservedEvent(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"logbook.hooks", "logbook.unsent", "LOGBOOK.tornTail", "logbook."} {
		_, err := Record(dir, []byte(`{"session_id":"forged","hook_event_name":"`+name+`","managed":true}`), "2026-01-01T00:00:00Z", "/w", Options{})
		var ref *Refusal
		if !errors.As(err, &ref) || ref.Reason != EventReserved || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "forged.steps.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("a refused event left a journal: %v", err)
	}
	if _, err := Record(dir, []byte(`{"session_id":"fine","hook_event_name":"logbookish"}`), "2026-01-01T00:00:00Z", "/w", Options{}); err != nil {
		t.Fatal(err)
	}
}
