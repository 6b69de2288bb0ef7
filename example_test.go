package logbook_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook-project/logbook"
)

// session records a short Claude Code session in a new directory and
// returns the directory.
func session() string {
	dir, err := os.MkdirTemp("", "logbook-example-")
	if err != nil {
		log.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, p := range []string{
		`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"go test ./..."}}`,
		`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok\n","stderr":""}}`,
	} {
		if _, err := logbook.RecordEvent(dir, []byte(p), at.Add(time.Duration(i)*time.Second)); err != nil {
			log.Fatal(err)
		}
	}
	return dir
}

// key is a fixed signing key, for output that does not change.
var key = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))

func ExampleRecordEvent() {
	dir, _ := os.MkdirTemp("", "logbook-example-")
	defer os.RemoveAll(dir)
	payload := []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t1","tool_input":{"file_path":"go.mod"}}`)
	session, err := logbook.RecordEvent(dir, payload, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	_, err = os.Stat(filepath.Join(dir, session+".steps.jsonl"))
	fmt.Println(session, err == nil)
	// Output: s1 true
}

func ExampleRun() {
	dir, _ := os.MkdirTemp("", "logbook-example-")
	defer os.RemoveAll(dir)
	var out bytes.Buffer
	code, err := logbook.Run(dir, "build", logbook.Command{Args: []string{"sh", "-c", "echo built; exit 3"}, Stdout: &out}, time.Now)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("exit %d, output %q\n", code, out.String())
	// Output: exit 3, output "built\n"
}

func ExampleSeal() {
	dir := session()
	defer os.RemoveAll(dir)
	sealed, err := logbook.Seal(dir, "s1", key, logbook.SealOptions{Goal: "run the tests"})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s1.record.json"), sealed.Record, 0o644); err != nil {
		log.Fatal(err)
	}
	v, err := logbook.Verify(sealed.Record, logbook.VerifyOptions{})
	fmt.Println(sealed.Steps, v.StepCount, err)
	// Output: 3 3 <nil>
}

func ExampleVerify() {
	dir := session()
	defer os.RemoveAll(dir)
	sealed, err := logbook.Seal(dir, "s1", key, logbook.SealOptions{})
	if err != nil {
		log.Fatal(err)
	}
	record := sealed.Record
	pinned := logbook.VerifyOptions{Pinned: []ed25519.PublicKey{key.Public().(ed25519.PublicKey)}}
	v, err := logbook.Verify(record, pinned)
	fmt.Println(v.StepCount, v.Pinned, err)

	// Someone edits a step: the record is refused, and the error says why.
	edited := bytes.Replace(record, []byte(`"kind":"exec"`), []byte(`"kind":"note"`), 1)
	_, err = logbook.Verify(edited, pinned)
	var refusal *logbook.RefusalError
	if errors.As(err, &refusal) {
		fmt.Println(refusal.Code == logbook.ChainBroken, refusal.Detail)
	}

	// Another signer is refused when keys are pinned.
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, 32))
	_, err = logbook.Verify(record, logbook.VerifyOptions{Pinned: []ed25519.PublicKey{other.Public().(ed25519.PublicKey)}})
	fmt.Println(err)
	// Output:
	// 3 true <nil>
	// true steps[1].hash does not recompute
	// SIGNER_NOT_TRUSTED: the signature is sound, but the key 324be2dea8bc44461b0233e51fa48902ed6b1cc671e7739af2551e0bfe68f54e is not among the pinned keys
}

func ExampleRead() {
	dir := session()
	defer os.RemoveAll(dir)
	sealed, err := logbook.Seal(dir, "s1", key, logbook.SealOptions{Goal: "run the tests"})
	if err != nil {
		log.Fatal(err)
	}
	rec, err := logbook.Read(sealed.Record, logbook.VerifyOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Session.ID, rec.Session.Goal, rec.Session.EndedAt)
	for _, s := range rec.Steps {
		fmt.Println(s.Seq, s.At, s.Kind, s.Summary)
	}
	// Output:
	// s1 run the tests 2026-01-02T03:04:07Z
	// 0 2026-01-02T03:04:05Z note SessionStart: startup
	// 1 2026-01-02T03:04:06Z exec PreToolUse Bash: go test ./...
	// 2 2026-01-02T03:04:07Z exec PostToolUse Bash: go test ./...
}

func ExampleFollow() {
	dir := session()
	defer os.RemoveAll(dir)
	// The agent rewrites a step it already recorded.
	journal := filepath.Join(dir, "s1.steps.jsonl")
	b, _ := os.ReadFile(journal)
	os.WriteFile(journal, bytes.Replace(b, []byte("go test ./..."), []byte("go vet ./...."), 1), 0o600)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := logbook.Follow(ctx, dir, logbook.FollowOptions{Session: "s1"})
	var alarm *logbook.Alarm
	if errors.As(err, &alarm) {
		fmt.Println(alarm.Code, alarm.Detail)
	}
	// Output: CHAIN_BROKEN line 3: steps[1].hash does not recompute
}
