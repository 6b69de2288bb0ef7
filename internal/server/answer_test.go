package server_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/hookpost"
)

// TestSignedAnswer: an event sent with a nonce is answered with the
// server's signature over the nonce, the body, the session, the status
// and the size, which hookpost.CheckAnswer (record-step --server
// --server-key) takes with the server's key and refuses with another;
// without a nonce the answer is as before (no signature); a malformed
// nonce is NONCE_INVALID; a refused event carries no signature.
func TestSignedAnswer(t *testing.T) {
	f := newServer(t, nil)
	tg, err := hookpost.Parse(f.ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	send := func(nonce string, body []byte) hookpost.Response {
		t.Helper()
		var h [][2]string
		if nonce != "" {
			h = append(h, [2]string{hookpost.NonceHeader, nonce})
		}
		r, err := hookpost.Post(tg, "/v1/hooks/claude-code", h, body, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	keys := [][]byte{f.pub}
	for i := 0; i < 3; i++ {
		nonce, _ := hookpost.NewNonce()
		body := event("signed", "PreToolUse", i)
		r := send(nonce, body)
		session, size, err := hookpost.CheckAnswer(r, nonce, body, keys)
		if r.Status != 200 || err != nil || session != "signed" || size != int64(i+1) || len(r.Header(hookpost.HeadHeader)) != 64 {
			t.Fatalf("event %d: %d %q %d %q %v", i, r.Status, session, size, r.Header(hookpost.HeadHeader), err)
		}
		other, _ := hookpost.NewNonce()
		if _, _, err := hookpost.CheckAnswer(r, other, body, keys); !errors.Is(err, hookpost.ErrUnsigned) {
			t.Fatalf("the answer to another nonce was taken: %v", err)
		}
	}
	// A SessionEnd seals (a note may be added): the head and size are
	// still those of the tip after it.
	nonce, _ := hookpost.NewNonce()
	end := event("signed", "SessionEnd", 0)
	if r := send(nonce, end); r.Status != 200 || len(r.Header(hookpost.HeadHeader)) != 64 {
		t.Fatalf("SessionEnd: %d head %q", r.Status, r.Header(hookpost.HeadHeader))
	} else if _, _, err := hookpost.CheckAnswer(r, nonce, end, keys); err != nil {
		t.Fatalf("SessionEnd: %v", err)
	}
	if r := send("", event("signed", "PostToolUse", 9)); r.Status != 200 || r.Header(hookpost.SignatureHeader) != "" {
		t.Fatalf("without a nonce: %d %q", r.Status, r.Header(hookpost.SignatureHeader))
	}
	if r := send("ABC", event("signed", "Stop", 0)); r.Status != 400 || !bytes.Contains(r.Body, []byte("NONCE_INVALID")) {
		t.Fatalf("a bad nonce: %d %s", r.Status, r.Body)
	}
	nonce, _ = hookpost.NewNonce()
	if r := send(nonce, []byte(`{"session_id":"signed","hook_event_name":"logbook.unsent","count":0}`)); r.Status != 400 || r.Header(hookpost.SignatureHeader) != "" ||
		!bytes.Contains(r.Body, []byte("EVENT_RESERVED")) {
		t.Fatalf("a forged note: %d %s", r.Status, r.Body)
	}
}
