package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/logbook-project/logbook/runback"
)

// TestRecordReplay: the example's agent replays to the recorded digest,
// and a replay with a changed question asks for a call the cassette does
// not hold, which fails by name instead of going out.
func TestRecordReplay(t *testing.T) {
	ctx := context.Background()
	rec := runback.NewRecorder(runback.Config{Name: "weather-agent"})
	answer, err := agent(ctx, rec, "q")
	if err != nil {
		t.Fatal(err)
	}
	cassette, err := rec.Seal(nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runback.NewReplayer(cassette, runback.Config{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := agent(ctx, rep, "q")
	if err != nil || again != answer || rep.Check() != nil {
		t.Fatalf("replay: %q, %v, %v; recorded %q", again, err, rep.Check(), answer)
	}
	rep2, _ := runback.NewReplayer(cassette, runback.Config{})
	if _, err := agent(ctx, rep2, "another question"); !errors.Is(err, runback.ErrNotRecorded) {
		t.Fatalf("changed question: %v, want ErrNotRecorded", err)
	}
	if !bytes.Contains(cassette, []byte(`"$schema": "runback.audit/v2"`)) {
		t.Fatal("no $schema")
	}
}
