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
		sig := ed25519.Sign(key, Statement(nonce, sha256.Sum256(body), session, status, size, head, SumOf(nil, 0, 0)))
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
	if !strings.HasPrefix(string(Statement(nonce, sha256.Sum256(body), "s1", 200, 7, head, AnswerSum{})), "logbook-server hook answer v2\nnonce "+nonce+"\n") {
		t.Error("the statement's first lines changed")
	}
}

// TestSignedRelay: the signature binds the answer a command hook relays
// (hookpost.Relay): a deny signed by the server is taken and read back
// byte for byte; the same answer with its body, its stdout length or its
// exit status changed (a deny turned into an allow by a relay or a
// squatter) is ErrUnsigned; a body the statement did not sign is too.
func TestSignedRelay(t *testing.T) {
	t.Parallel()
	pub, priv, _ := ed25519.GenerateKey(nil)
	nonce, _ := NewNonce()
	body := []byte(`{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"run_shell_command"}`)
	head := strings.Repeat("ab", 32)
	deny := "logbook policy rule no-rm-rf: not here\n"
	signed := func(ans string, stdout, exit int, hdrExit, hdrStdout string) Response {
		sig := ed25519.Sign(priv, Statement(nonce, sha256.Sum256(body), "s1", 200, 3, head, SumOf([]byte(ans), stdout, exit)))
		raw := "HTTP/1.1 200 OK\r\nX-Logbook-Session: s1\r\nX-Logbook-Size: 3\r\nX-Logbook-Head: " + head +
			"\r\nX-Logbook-Signature: " + hex.EncodeToString(sig) + "\r\nX-Logbook-Exit: " + hdrExit + "\r\nX-Logbook-Stdout: " + hdrStdout +
			"\r\nContent-Length: " + itoa(len(ans)) + "\r\n\r\n" + ans
		r, err := parseResponse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	keys := [][]byte{pub}
	good := signed(deny, 0, 2, "2", "0")
	if _, _, err := CheckAnswer(good, nonce, body, keys); err != nil {
		t.Fatalf("the signed deny: %v", err)
	}
	if rel, err := ParseRelay(good); err != nil || string(rel.Stderr) != deny || len(rel.Stdout) != 0 || rel.Exit != 2 {
		t.Fatalf("relay %+v %v", rel, err)
	}
	allowed := good
	allowed.Body = nil
	for name, r := range map[string]Response{
		"exit 2 made 0":           withHeader(good, "X-Logbook-Exit", "0"),
		"reason moved to stdout":  withHeader(good, "X-Logbook-Stdout", itoa(len(deny))),
		"body emptied":            withHeader(allowed, "Content-Length", "0"),
		"reason changed":          withBody(good, strings.Replace(deny, "not here", "NOT HERE", 1)),
		"signed as an allow only": withBody(signed("", 0, 0, "0", "0"), deny),
	} {
		if _, _, err := CheckAnswer(r, nonce, body, keys); !errors.Is(err, ErrUnsigned) {
			t.Errorf("%s: taken (%v)", name, err)
		}
	}
	for name, r := range map[string]Response{
		"exit 1":            withHeader(good, "X-Logbook-Exit", "1"),
		"stdout past body":  withHeader(good, "X-Logbook-Stdout", itoa(len(deny)+1)),
		"stdout negative":   withHeader(good, "X-Logbook-Stdout", "-1"),
		"no exit":           {Status: 200, Body: []byte(deny)},
		"cut off":           withBody(good, deny[:5]),
		"chunked":           withHeader(withHeader(good, "Content-Length", "x"), "Content-Length", "0"),
		"truncated by Post": func() Response { r := good; r.Truncated = true; return r }(),
		"an allow":          relayOf(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`),
		"an escaped allow":  relayOf(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"\u0061llow"}}`),
		"Cursor's allow":    relayOf(`{"permission":"allow"}`),
	} {
		if name == "chunked" {
			r = good
			r.head = append(append([]byte(nil), r.head...), "\r\nTransfer-Encoding: chunked"...)
		}
		if _, err := ParseRelay(r); !errors.Is(err, ErrRelay) {
			t.Errorf("%s: read as a relay (%v)", name, err)
		}
	}
	if rel, err := ParseRelay(Response{Status: 200}); err != nil || rel.Exit != 0 || len(rel.Stdout)+len(rel.Stderr) != 0 {
		t.Errorf("an empty 200: %+v %v", rel, err)
	}
}

// relayOf is an unsigned relayed answer with stdout as its stdout.
func relayOf(stdout string) Response {
	r, _ := parseResponse([]byte("HTTP/1.1 200 OK\r\nX-Logbook-Exit: 0\r\nX-Logbook-Stdout: " + itoa(len(stdout)) + "\r\n\r\n" + stdout))
	return r
}

// withBody replaces the body, keeping the headers.
func withBody(r Response, body string) Response {
	r.Body = []byte(body)
	return r
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
