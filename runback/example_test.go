package runback_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/runback"
)

// agent is agent code written once against runback.Session: it runs the
// same way when recorded and when replayed.
func agent(ctx context.Context, s runback.Session, question string) (string, error) {
	reply, err := s.Model(ctx, runback.ModelCall{Provider: "fake", Model: "scripted-1",
		Request: map[string]any{"messages": []string{question}}},
		func(context.Context) (any, error) {
			return map[string]any{"tool": "lookup", "arg": "rates"}, nil // a real client calls the model here
		})
	if err != nil {
		return "", err
	}
	out, err := s.Tool(ctx, runback.ToolCall{Name: "lookup", CallID: "t1", Input: map[string]any{"reply": string(reply)}},
		func(context.Context) (any, error) { return map[string]any{"rate": 4.5}, nil })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (request %s)", out, s.UUID()), nil
}

func fixedClock() time.Time { return time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC) }

func seeded(seed string) func([]byte) {
	var n byte
	return func(b []byte) {
		for i := range b {
			s := sha256.Sum256([]byte{n})
			n++
			b[i] = s[0] ^ seed[0]
		}
	}
}

// Record a run, seal it, verify it pinned to the signing key, and replay
// it with no network: the replay's cassette digest equals the recorded one.
func Example() {
	ctx := context.Background()
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))

	rec := runback.NewRecorder(runback.Config{RunID: "run_example", Name: "rates-agent", Clock: fixedClock, Rand: seeded("a")})
	_ = rec.Start("what is the rate?")
	answer, err := agent(ctx, rec, "what is the rate?")
	_ = rec.End(answer, err)
	cassette, _ := rec.Seal(runback.Ed25519Signer(priv))

	res, _ := runback.Verify(cassette, runback.VerifyOptions{Pinned: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}})
	fmt.Println("verdict:", res.Verdict)

	rep, _ := runback.NewReplayer(cassette, runback.Config{Clock: fixedClock})
	_ = rep.Start("what is the rate?")
	again, err := agent(ctx, rep, "what is the rate?")
	_ = rep.End(again, err)
	fmt.Println("same answer:", again == answer)
	fmt.Println("digests match:", rep.Check() == nil)

	// A call the cassette does not hold fails instead of going out.
	_, err = rep.Tool(ctx, runback.ToolCall{Name: "transfer", Input: map[string]any{"amount": 1e6}}, nil)
	fmt.Println("not recorded:", errors.Is(err, runback.ErrNotRecorded))
	// Output:
	// verdict: valid
	// same answer: true
	// digests match: true
	// not recorded: true
}

// An HMAC-sealed cassette verifies only with the shared key, and says what
// that proves.
func ExampleHMACSigner() {
	rec := runback.NewRecorder(runback.Config{RunID: "run_hmac", Clock: fixedClock})
	_ = rec.Start(nil)
	_ = rec.End("done", nil)
	key := []byte("a shared secret")
	cassette, _ := rec.Seal(runback.HMACSigner(key))

	res, _ := runback.Verify(cassette, runback.VerifyOptions{})
	fmt.Println(res.Verdict, res.Checks.Signature)
	res, _ = runback.Verify(cassette, runback.VerifyOptions{HMACKeys: [][]byte{key}})
	fmt.Println(res.Verdict, res.Checks.Signature)
	fmt.Println(res.SignatureNote[:60])
	// Output:
	// unverified no-key
	// valid valid
	// HMAC-SHA256 matches a key you supplied: this proves custody
}

// The same run as a logbook record: one step per cassette event, sealed,
// verified by the logbook verifier.
func ExampleRecorder_WriteLogbook() {
	rec := runback.NewRecorder(runback.Config{RunID: "run_lb", Name: "agent", Clock: fixedClock, Rand: seeded("b")})
	_ = rec.Start("task")
	rec.Now()
	_ = rec.End("done", nil)
	dir, _ := os.MkdirTemp("", "logbook")
	defer os.RemoveAll(dir)
	record, err := rec.WriteLogbook(dir, ed25519.NewKeyFromSeed(make([]byte, 32)))
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := logbook.Verify(record, logbook.VerifyOptions{})
	fmt.Println(err == nil, v.StepCount)
	// Output:
	// true 3
}
