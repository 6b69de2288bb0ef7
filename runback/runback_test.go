package runback

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook"
)

func fixed() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	return func() time.Time { mu.Lock(); defer mu.Unlock(); t = t.Add(time.Millisecond); return t }
}

const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

func record(t *testing.T, cfg Config, reqID string) (*Recorder, []byte) {
	t.Helper()
	ctx := context.Background()
	r := NewRecorder(cfg)
	if err := r.Start("go"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Tool(ctx, ToolCall{Name: "deploy", Input: map[string]any{"env": "prod", "password": "hunter2", "request_id": reqID, "cmd": "GITHUB_TOKEN=" + token + " ./deploy"}},
		func(context.Context) (any, error) { return map[string]any{"log": "used " + token}, nil }); err != nil {
		t.Fatal(err)
	}
	r.Now()
	r.Random()
	r.UUID()
	if _, err := r.Fetch(ctx, "get", "https://api.example/x?access_token="+token, func(context.Context) (FetchResult, error) {
		return FetchResult{Status: 200, Body: []byte{0xff, 0}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.End("ok", nil); err != nil {
		t.Fatal(err)
	}
	c, err := r.Seal(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, c
}

// TestRedactedBeforeHashing: no secret reaches the cassette, and the key
// of a call is the key of its redacted input, so replay still finds it.
func TestRedactedBeforeHashing(t *testing.T) {
	cfg := Config{RunID: "run_r", Clock: fixed()}
	_, c := record(t, cfg, "a")
	for _, secret := range []string{token, "hunter2"} {
		if bytes.Contains(c, []byte(secret)) {
			t.Errorf("cassette holds %q", secret)
		}
	}
	rep, err := NewReplayer(c, Config{Clock: fixed()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rep.Tool(context.Background(), ToolCall{Name: "deploy", Input: map[string]any{"env": "prod", "password": "other", "request_id": "a", "cmd": "GITHUB_TOKEN=" + token + " ./deploy"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), token) || !strings.Contains(string(out), "[REDACTED]") {
		t.Errorf("served %s", out)
	}
}

// TestReplayDigest: a faithful re-run reproduces the cassette digest; an
// env read the cassette lacks is reported; a changed input is not served.
func TestReplayDigest(t *testing.T) {
	_, c := record(t, Config{RunID: "run_r", Clock: fixed()}, "a")
	replay := func(reqID string, extraNow bool) (*Replayer, error) {
		rep, err := NewReplayer(c, Config{Clock: fixed()})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := rep.Tool(ctx, ToolCall{Name: "deploy", Input: map[string]any{"env": "prod", "password": "x", "request_id": reqID, "cmd": "GITHUB_TOKEN=" + token + " ./deploy"}}, nil); err != nil {
			return rep, err
		}
		rep.Now()
		rep.Random()
		rep.UUID()
		res, err := rep.Fetch(ctx, "GET", "https://api.example/x?access_token="+token, nil)
		if err != nil || res.Status != 200 || !bytes.Equal(res.Body, []byte{0xff, 0}) {
			t.Fatalf("fetch %+v %v", res, err)
		}
		if extraNow {
			rep.Now()
		}
		return rep, nil
	}
	rep, err := replay("a", false)
	if err != nil || rep.Check() != nil || rep.Digest() != rep.RecordedDigest() || rep.Unused() != 0 {
		t.Fatalf("faithful replay: %v %v", err, rep.Check())
	}
	rep, _ = replay("a", true)
	if !errors.Is(rep.Err(), ErrNotRecorded) || rep.Check() == nil {
		t.Fatalf("extra clock read: %v", rep.Err())
	}
	var nr *NotRecordedError
	if _, err := replay("b", false); !errors.As(err, &nr) || nr.Kind != "tool" || nr.Name != "deploy" {
		t.Fatalf("changed input: %v", err)
	}
}

// TestKeyProjection: with request_id dropped from the key, a call that
// differs only there is served, and the cassette records the projection.
func TestKeyProjection(t *testing.T) {
	proj := map[string]KeyProjection{"deploy": {Drop: []string{"request_id"}}}
	_, c := record(t, Config{RunID: "run_p", Clock: fixed(), Projections: proj}, "a")
	if !bytes.Contains(c, []byte(`"key_projection": {`)) {
		t.Fatal("no key_projection in the cassette")
	}
	if res, err := Verify(c, VerifyOptions{}); err != nil || !res.Integrity {
		t.Fatalf("%v %+v", err, res.Checks)
	}
	rep, _ := NewReplayer(c, Config{Clock: fixed(), Projections: proj})
	if _, err := rep.Tool(context.Background(), ToolCall{Name: "deploy", Input: map[string]any{"env": "prod", "password": "x", "request_id": "zzz", "cmd": "GITHUB_TOKEN=" + token + " ./deploy"}}, nil); err != nil {
		t.Fatal(err)
	}
	// Keep: only env counts.
	_, c = record(t, Config{RunID: "run_k", Clock: fixed(), Projections: map[string]KeyProjection{"deploy": {Keep: []string{"env"}}}}, "a")
	rep, _ = NewReplayer(c, Config{Clock: fixed(), Projections: map[string]KeyProjection{"deploy": {Keep: []string{"env"}}}})
	if _, err := rep.Tool(context.Background(), ToolCall{Name: "deploy", Input: map[string]any{"env": "prod"}}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestSealVerifyTamper: sealed and pinned is valid; one byte of one event
// changed is invalid, with the chain named and the event found.
func TestSealVerifyTamper(t *testing.T) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	r, _ := record(t, Config{RunID: "run_s", Clock: fixed()}, "a")
	c, err := r.Seal(Ed25519Signer(priv))
	if err != nil {
		t.Fatal(err)
	}
	pin := VerifyOptions{Pinned: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}}
	res, err := Verify(c, pin)
	if err != nil || res.Verdict != "valid" || len(res.Findings) != 0 {
		t.Fatalf("%v %s %+v", err, res.Verdict, res.Findings)
	}
	bad := bytes.Replace(c, []byte(`"env": "prod"`), []byte(`"env": "dev"`), 1)
	res, err = Verify(bad, pin)
	if err != nil || res.Verdict != "invalid" || res.FailedChecks[0] != "chain" || res.FirstBadEvent != 1 {
		t.Fatalf("tampered: %v %s %v event %d", err, res.Verdict, res.FailedChecks, res.FirstBadEvent)
	}
	if _, err := NewReplayer(bad, Config{}); err == nil {
		t.Fatal("a tampered cassette was replayed")
	}
}

// TestConcurrent: calls from many goroutines each get their own seq.
func TestConcurrent(t *testing.T) {
	r := NewRecorder(Config{Clock: fixed()})
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Now()
			_, _ = r.Tool(context.Background(), ToolCall{Name: "t", Input: i}, func(context.Context) (any, error) { return i, nil })
		}()
	}
	wg.Wait()
	c, _ := r.Seal(nil)
	res, err := Verify(c, VerifyOptions{})
	if err != nil || !res.Integrity || res.Meta.EventCount != 100 {
		t.Fatalf("%v %+v", err, res)
	}
	for _, f := range res.Findings {
		if f.Code != "EMPTY_RECORD" && f.Code != "NO_RUN_END" {
			t.Errorf("finding %s", f.Code)
		}
	}
}

// TestWriteLogbook: the same run as a logbook record verifies, one step
// per event.
func TestWriteLogbook(t *testing.T) {
	r, _ := record(t, Config{RunID: "run_lb", Name: "deployer", Clock: fixed()}, "a")
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
	rec, err := r.WriteLogbook(t.TempDir(), priv)
	if err != nil {
		t.Fatal(err)
	}
	v, err := logbook.Verify(rec, logbook.VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.StepCount < 7 {
		t.Fatalf("%d steps for 7 events", v.StepCount)
	}
}
