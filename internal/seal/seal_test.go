package seal

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

func toolStep(at, event, id string) chain.Step {
	return chain.Step{At: at, Kind: "exec", Summary: event, Data: strictjson.Obj(
		strictjson.Member{Key: "event", Value: strictjson.Str(event)},
		strictjson.Member{Key: "toolUseId", Value: strictjson.Str(id)},
	)}
}

func key() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("seal test"))
	return ed25519.NewKeyFromSeed(seed[:])
}

func sealDir(t *testing.T, dir string) Result {
	t.Helper()
	j, err := journalfile.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := Seal(j, key(), Options{Goal: "g", Now: "2026-01-02T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func appendSteps(t *testing.T, dir string, steps ...chain.Step) {
	t.Helper()
	j, err := journalfile.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(journalfile.Header{Session: "s", Cwd: "/w", Harness: "claude-code"}, steps); err != nil {
		t.Fatal(err)
	}
}

// TestUnfinishedNamedOnce: a pre-event without a post-event is named in a
// note at seal, once; sealing again gives the same bytes.
func TestUnfinishedNamedOnce(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir,
		toolStep("2026-01-01T00:00:00Z", "PreToolUse", "a"),
		toolStep("2026-01-01T00:00:01Z", "PostToolUse", "a"),
		toolStep("2026-01-01T00:00:02Z", "PreToolUse", "b"),
		toolStep("2026-01-01T00:00:03Z", "PreToolUse", "c"),
		toolStep("2026-01-01T00:00:04Z", "PostToolUseFailure", "c"),
	)
	appendSteps(t, dir, // a post-event that landed before its pre-event
		toolStep("2026-01-01T00:00:05Z", "PostToolUse", "d"),
		toolStep("2026-01-01T00:00:05Z", "PreToolUse", "d"))
	first := sealDir(t, dir)
	if strings.Join(first.Unfinished, ",") != "b" || first.Steps != 8 {
		t.Fatalf("unfinished %v, %d steps", first.Unfinished, first.Steps)
	}
	again := sealDir(t, dir)
	if len(again.Unfinished) != 0 || !bytes.Equal(first.Record, again.Record) {
		t.Fatalf("second seal: unfinished %v, same bytes %v", again.Unfinished, bytes.Equal(first.Record, again.Record))
	}
	if v := record.Verify(first.Record, record.Options{}); !v.OK {
		t.Fatal(v.Detail)
	}
	if !bytes.Contains(first.Record, []byte(`"toolUseIds":["b"]`)) {
		t.Fatal("the note does not name the unfinished call")
	}
}

// TestTornTailNoted: a torn last line is cut and the record says so.
func TestTornTailNoted(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, toolStep("2026-01-01T00:00:00Z", "Stop", ""))
	f, _ := os.OpenFile(journalfile.Path(dir, "s"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"at":"2026-01-01T00:00:01Z","da`)
	f.Close()
	res := sealDir(t, dir)
	if !res.TornBytes || res.Steps != 2 || !bytes.Contains(res.Record, []byte("logbook.tornTail")) {
		t.Fatalf("torn %v steps %d", res.TornBytes, res.Steps)
	}
}

// TestSessionHeader: agent from the harness and model, start and end from
// the steps, goal from the caller.
func TestSessionHeader(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir,
		chain.Step{At: "2026-01-01T00:00:00Z", Kind: "note", Summary: "start", Data: strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str("SessionStart")},
			strictjson.Member{Key: "model", Value: strictjson.Str("claude-x")})},
		toolStep("2026-01-01T00:05:00Z", "Stop", ""),
	)
	res := sealDir(t, dir)
	for _, want := range []string{`"agent":"claude-code (claude-x)"`, `"startedAt":"2026-01-01T00:00:00Z"`, `"endedAt":"2026-01-01T00:05:00Z"`, `"goal":"g"`, `"cwd":"/w"`} {
		if !bytes.Contains(res.Record, []byte(want)) {
			t.Errorf("record lacks %s", want)
		}
	}
}

// TestHeaderNamesAnotherSession: an in-progress file copied from another
// session does not seal under this one's name.
func TestHeaderNamesAnotherSession(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, toolStep("2026-01-01T00:00:00Z", "Stop", ""))
	b, _ := os.ReadFile(journalfile.Path(dir, "s"))
	os.WriteFile(journalfile.Path(dir, "victim"), b, 0o600)
	j, err := journalfile.Open(dir, "victim")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := Seal(j, key(), Options{}); err == nil || !strings.Contains(err.Error(), "belongs to session") {
		t.Fatalf("want a refusal, got %v", err)
	}
}

// TestUnfinishedWrappedCommand: a logbook-wrap start step with no end step
// (the wrapper was killed outright) is named like an unfinished tool call;
// a finished one is not.
func TestUnfinishedWrappedCommand(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir,
		toolStep("2026-01-01T00:00:00Z", "logbook-wrap.start", "wrap_done"),
		toolStep("2026-01-01T00:00:01Z", "logbook-wrap.end", "wrap_done"),
		toolStep("2026-01-01T00:00:02Z", "logbook-wrap.start", "wrap_killed"),
	)
	res := sealDir(t, dir)
	if len(res.Unfinished) != 1 || res.Unfinished[0] != "wrap_killed" {
		t.Fatalf("unfinished %v", res.Unfinished)
	}
}

// TestAgentRedacted: session.agent is built from clear text a payload
// gave (a harness version, a model), so it passes the redactor.
func TestAgentRedacted(t *testing.T) {
	dir := t.TempDir()
	j, err := journalfile.Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	secret := "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	if _, err := j.Append(journalfile.Header{Session: "s", Cwd: "/w", Harness: "cursor " + secret}, []chain.Step{toolStep("2026-01-01T00:00:00Z", "SessionStart", "")}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	res := sealDir(t, dir)
	if bytes.Contains(res.Record, []byte(secret)) {
		t.Fatal("a secret in the harness version reached session.agent")
	}
}
