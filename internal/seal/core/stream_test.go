package core

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// TestSealFileMemory bounds what SealFile allocates (the check it is
// given aside: that is the verifier's) for each step a session has, and
// what it still holds once the record is written. Seal allocated the
// journal, the steps array and the record, three times the journal and
// more, and held the record at the check; SealFile reads the journal a
// chunk at a time and writes the record through files, so it allocates a
// fixed amount plus a little per step (the strings it keeps), and holds
// nothing of the session at the check. Deterministic: bytes allocated
// and held (runtime.MemStats after a collection), not time or resident
// memory.
func TestSealFileMemory(t *testing.T) {
	a5, held5, size5 := sealMemory(t, 5000)
	a10, held10, size10 := sealMemory(t, 10000)
	perStep := float64(a10-a5) / 5000
	t.Logf("5,000 steps (%d bytes): allocated %d, held %d at the check; 10,000 steps (%d bytes): allocated %d, held %d; %.0f bytes allocated per step (a step is %d bytes)",
		size5, a5, held5, size10, a10, held10, perStep, (size10-size5)/5000)
	if perStep > limitAllocPerStep {
		t.Fatalf("SealFile allocated %.0f bytes per step, want at most %d", perStep, limitAllocPerStep)
	}
	if held10 > limitHeld {
		t.Fatalf("SealFile held %d bytes at the check of a %d-byte journal, want at most %d", held10, size10, limitHeld)
	}
}

// limitAllocPerStep: about 300 bytes measured (the gap tracker's map
// entry, the strings kept, each 1 MiB chunk's parse blocks), with room;
// Seal allocated over 2,000 per step of this size. limitHeld: nothing of
// the session is reachable at the check (a few hundred bytes measured);
// Seal held the whole record there.
const (
	limitAllocPerStep = 450
	limitHeld         = 256 << 10
)

// sealMemory seals a journal of n steps (669 bytes each) with SealFile and
// returns the bytes it allocated and held at the check, and the journal's size.
func sealMemory(t *testing.T, n int) (alloc, held uint64, size int64) {
	dir := t.TempDir()
	j, err := journalfile.Open(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	steps := make([]chain.Step, n)
	for i := range steps {
		ev, id := "PreToolUse", fmt.Sprintf("toolu_%020d", i/2)
		if i%2 == 1 {
			ev = "PostToolUse"
		}
		steps[i] = chain.Step{At: fmt.Sprintf("2026-05-01T00:00:00.%09dZ", i), Kind: "exec", Summary: "Bash: " + strings.Repeat("make test ", 30),
			Data: strictjson.Obj(
				strictjson.Member{Key: "event", Value: strictjson.Str(ev)},
				strictjson.Member{Key: "toolUseId", Value: strictjson.Str(id)},
				strictjson.Member{Key: "tool", Value: strictjson.Str("Bash")},
			)}
	}
	if _, err := j.Append(journalfile.Header{Session: "m", Cwd: "/w", Harness: "claude-code"}, steps); err != nil {
		t.Fatal(err)
	}
	steps = nil
	st, err := os.Stat(journalfile.Path(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	var before, atCheck, afterGC runtime.MemStats
	opt := Options{Now: "2026-05-02T00:00:00Z", CheckFile: func(string) error {
		runtime.ReadMemStats(&atCheck) // everything SealFile did but the check
		runtime.GC()
		runtime.ReadMemStats(&afterGC)
		return nil
	}}
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, path, err := SealFile(j, priv, opt, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.Stat(path)
	if err != nil || res.Steps != n || rec.Size() < st.Size() {
		t.Fatalf("sealed %d steps into %v (%v)", res.Steps, rec, err)
	}
	held = 0
	if afterGC.HeapAlloc > before.HeapAlloc {
		held = afterGC.HeapAlloc - before.HeapAlloc
	}
	return atCheck.TotalAlloc - before.TotalAlloc, held, st.Size()
}

// A seal killed before it cleaned up left its temporary files beside the
// record; the next seal of the session removes them, and only them.
func TestSealFileRemovesStale(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	j, err := journalfile.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(journalfile.Header{Session: "s", Cwd: "/w", Harness: "claude-code"},
		[]chain.Step{{At: "2026-05-01T00:00:00Z", Kind: "note", Summary: "x", Data: strictjson.Obj()}}); err != nil {
		t.Fatal(err)
	}
	stale := []string{".s.steps-123.tmp", ".s.record-456.tmp"}
	kept := []string{".t.steps-123.tmp", "s.record.json", ".s.steps-1.tmpx"}
	for _, f := range append(stale, kept...) {
		os.WriteFile(filepath.Join(out, f), []byte("x"), 0o600)
	}
	_, path, err := SealFile(j, ed25519.NewKeyFromSeed(make([]byte, 32)), Options{Now: "2026-05-02T00:00:00Z", CheckFile: func(string) error { return nil }}, out)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	var left []string
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != ".s.steps-1.tmpx .t.steps-123.tmp s.record.json" {
		t.Fatalf("left: %v", left)
	}
}
