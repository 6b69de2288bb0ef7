package hookpost

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestCheckAnswer: a 200 is taken only with a signature by a pinned key
// over this request's nonce and body and the answer's session, status
// and size; any change to one of them, another key, or no signature is
// ErrUnsigned.
func TestCheckAnswer(t *testing.T) {
	t.Parallel()
	pub, priv, _ := ed25519.GenerateKey(nil)
	other, _, _ := ed25519.GenerateKey(nil)
	nonce, err := NewNonce()
	if err != nil || !ValidNonce(nonce) {
		t.Fatalf("nonce %q: %v", nonce, err)
	}
	if n2, _ := NewNonce(); n2 == nonce {
		t.Fatal("two nonces alike")
	}
	body := []byte(`{"session_id":"s1","hook_event_name":"Stop"}`)
	head := strings.Repeat("ab", 32)
	answer := func(nonce string, body []byte, session string, status int, size int64, key ed25519.PrivateKey) Response {
		sig := ed25519.Sign(key, Statement(nonce, sha256.Sum256(body), session, status, size, head))
		raw := "HTTP/1.1 " + itoa(status) + " OK\r\nx-logbook-session: " + session + "\r\nX-Logbook-Size: " + itoa(int(size)) +
			"\r\nX-Logbook-Head: " + head + "\r\nX-Logbook-Signature: " + hex.EncodeToString(sig) + "\r\nContent-Length: 0\r\n\r\n"
		r, err := parseResponse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	keys := [][]byte{other, pub}
	if s, n, err := CheckAnswer(answer(nonce, body, "s1", 200, 7, priv), nonce, body, keys); err != nil || s != "s1" || n != 7 {
		t.Fatalf("a good answer: %q %d %v", s, n, err)
	}
	_, otherPriv, _ := ed25519.GenerateKey(nil)
	replayNonce, _ := NewNonce()
	bad := map[string]Response{
		"another key":         answer(nonce, body, "s1", 200, 7, otherPriv),
		"another nonce":       answer(replayNonce, body, "s1", 200, 7, priv),
		"another body":        answer(nonce, []byte(`{}`), "s1", 200, 7, priv),
		"no signature":        {Status: 200, head: []byte("X-Logbook-Session: s1\r\nX-Logbook-Size: 7")},
		"not hex":             {Status: 200, head: []byte("X-Logbook-Session: s1\r\nX-Logbook-Size: 7\r\nX-Logbook-Signature: !!")},
		"a squatter's 200":    {Status: 200},
		"size changed":        withHeader(answer(nonce, body, "s1", 200, 7, priv), "X-Logbook-Size", "8"),
		"session changed":     withHeader(answer(nonce, body, "s1", 200, 7, priv), "x-logbook-session", "s2"),
		"head changed":        withHeader(answer(nonce, body, "s1", 200, 7, priv), "X-Logbook-Head", strings.Repeat("cd", 32)),
		"head not hex":        withHeader(answer(nonce, body, "s1", 200, 7, priv), "X-Logbook-Head", "x\nsize 9"),
		"status not the same": answer(nonce, body, "s1", 201, 7, priv),
	}
	for name, r := range bad {
		r.Status = 200
		if _, _, err := CheckAnswer(r, nonce, body, keys); !errors.Is(err, ErrUnsigned) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.HasPrefix(string(Statement(nonce, sha256.Sum256(body), "s1", 200, 7, head)), "logbook-server hook answer v1\nnonce "+nonce+"\n") {
		t.Error("the statement's first lines changed")
	}
}

// TestParseKey: 64 hex digits of a large-order point; small-order keys
// and other text are refused.
func TestParseKey(t *testing.T) {
	t.Parallel()
	pub, _, _ := ed25519.GenerateKey(nil)
	if got, err := ParseKey(hex.EncodeToString(pub)); err != nil || string(got) != string(pub) {
		t.Fatalf("%v", err)
	}
	for _, s := range []string{"", "xyz", hex.EncodeToString(pub[:31]),
		"0100000000000000000000000000000000000000000000000000000000000000",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("%q taken as a key", s)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// withHeader replaces the header named name (as written) with value.
func withHeader(r Response, name, value string) Response {
	lines := strings.Split(string(r.head), "\r\n")
	for i, l := range lines {
		if strings.HasPrefix(l, name+":") {
			lines[i] = name + ": " + value
		}
	}
	r.head = []byte(strings.Join(lines, "\r\n"))
	return r
}
