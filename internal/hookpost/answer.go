package hookpost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/logbook-project/logbook/internal/edverify"
	"github.com/logbook-project/logbook/internal/format"
)

// A signed answer: over TCP nothing tells the hook who answers on the
// server's port (a process that took it while the server was down answers
// 200 as well as the server). So record-step --server --server-key sends
// a fresh nonce with each event (NonceHeader), and logbook-server signs
// what it did with its key (SignatureHeader, over Statement); a 200 that
// does not carry a signature by a pinned key over this event's nonce and
// body is taken as "not recorded". docs/server.md, "Who answers".
const (
	NonceHeader     = "X-Logbook-Nonce"
	SignatureHeader = "X-Logbook-Signature" // the Ed25519 signature, 128 lowercase hex digits (hex: encoding/base64 would add its start-up to every hook)
	SessionHeader   = "X-Logbook-Session"
	SizeHeader      = "X-Logbook-Size"
	HeadHeader      = "X-Logbook-Head" // the session's chain tip after the event, 64 hex digits ("-": not known)
)

// The answer relayed to a command hook (relay.go): record-step --server
// asks for it with AnswerHeader: AnswerCommand, and the server answers a
// gated call with what logbook-policy hook would write: the body is the
// hook's stdout followed by its stderr, StdoutHeader the length of the
// stdout part, ExitHeader the exit status.
const (
	AnswerHeader  = "X-Logbook-Answer"
	AnswerCommand = "command"
	ExitHeader    = "X-Logbook-Exit"
	StdoutHeader  = "X-Logbook-Stdout"
)

// statementDomain opens every statement. It holds spaces, so no signed
// note (whose first line is an origin without spaces) and no JSON text
// (a seal) can be read as a statement, nor a statement as either: the
// server's checkpoint key can sign both without one standing for the
// other.
const statementDomain = "logbook-server hook answer v2"

// NonceLen is the length of a nonce: 32 lowercase hex digits (16 random
// bytes).
const NonceLen = 32

// Statement is what the server signs for an answered event: the nonce
// the hook sent, the SHA-256 of the request body as received, the
// session the event went to, the status, the session's size (its step
// count, which the event's checkpoint signs) after it, and the hash of
// its last step then (head; "-" when the server could not tell). Each
// line is "name value"; the session id is a plain name
// (journal.ValidSessionID), the rest are numbers and hex.
//
// v2 adds the answer itself (AnswerSum): the SHA-256 of the response body
// (a command hook's stdout and stderr, or an HTTP hook's JSON), the
// stdout part's length and the exit status, so that what record-step
// relays to its harness (a deny) cannot be changed on the way (to an
// allow) by a relay or by a process answering on the server's port.
func Statement(nonce string, body [32]byte, session string, status int, size int64, head string, ans AnswerSum) []byte {
	var b bytes.Buffer
	b.Grow(160 + len(session))
	b.WriteString(statementDomain)
	b.WriteString("\nnonce ")
	b.WriteString(nonce)
	b.WriteString("\nbody sha256:")
	b.WriteString(hex.EncodeToString(body[:]))
	b.WriteString("\nsession ")
	b.WriteString(session)
	b.WriteString("\nstatus ")
	b.WriteString(strconv.Itoa(status))
	b.WriteString("\nsize ")
	b.WriteString(strconv.FormatInt(size, 10))
	b.WriteString("\nhead ")
	b.WriteString(head)
	b.WriteString("\nanswer sha256:")
	b.WriteString(hex.EncodeToString(ans.Sum[:]))
	b.WriteString("\nstdout ")
	b.WriteString(strconv.Itoa(ans.Stdout))
	b.WriteString("\nexit ")
	b.WriteString(strconv.Itoa(ans.Exit))
	b.WriteString("\n")
	return b.Bytes()
}

// AnswerSum is what a statement binds of the answer: the SHA-256 of the
// response body, the length of its stdout part and the exit status
// (both 0 for an HTTP hook's answer).
type AnswerSum struct {
	Sum    [32]byte
	Stdout int
	Exit   int
}

// SumOf is the AnswerSum of a response body.
func SumOf(body []byte, stdout, exit int) AnswerSum {
	return AnswerSum{Sum: sha256.Sum256(body), Stdout: stdout, Exit: exit}
}

// ValidNonce reports whether s has a nonce's form.
func ValidNonce(s string) bool { return len(s) == NonceLen && format.LowerHex(s) }

// validHead reports whether s is a head: 64 lowercase hex digits, or "-".
func validHead(s string) bool { return s == "-" || format.Hex64(s) }

// NewNonce is 16 bytes from the system's random source (readRandom), as
// hex.
func NewNonce() (string, error) {
	var b [NonceLen / 2]byte
	if err := readRandom(b[:]); err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ParseKey reads a pinned server key: the 64 hex digits of an Ed25519
// public key (GET /v1/key's publicKey). A small-order key, or one that
// is no point, is refused.
func ParseKey(s string) ([]byte, error) {
	pub, err := hex.DecodeString(s)
	if err != nil || len(pub) != edverify.PublicKeySize {
		return nil, fmt.Errorf("server key %q: want the 64 hex digits of an Ed25519 public key (GET /v1/key's publicKey)", clip(s))
	}
	if err := edverify.PublicKey(pub); err != nil {
		return nil, fmt.Errorf("server key %s: %w", s, err)
	}
	return pub, nil
}

// ErrUnsigned is CheckAnswer's error for an answer without a valid
// signature by a pinned key.
var ErrUnsigned = errors.New("the answer is not signed by the pinned server key")

// CheckAnswer checks a 200 answer to a request that carried nonce and
// body: it must carry the session, its size and head, and a signature by
// one of keys over Statement. It returns the session and the size.
func CheckAnswer(r Response, nonce string, body []byte, keys [][]byte) (string, int64, error) {
	session, sig64, head := r.Header(SessionHeader), r.Header(SignatureHeader), r.Header(HeadHeader)
	size, err := strconv.ParseInt(r.Header(SizeHeader), 10, 64)
	if session == "" || sig64 == "" || err != nil || !validHead(head) {
		return "", 0, fmt.Errorf("%w: it carries no %s (or no session, size and head)", ErrUnsigned, SignatureHeader)
	}
	sig, err := hex.DecodeString(sig64)
	if err != nil || len(sig) != edverify.SignatureSize {
		return "", 0, fmt.Errorf("%w: %s is not 128 hex digits", ErrUnsigned, SignatureHeader)
	}
	rel, err := ParseRelay(r)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", ErrUnsigned, err)
	}
	msg := Statement(nonce, sha256.Sum256(body), session, r.Status, size, head, SumOf(r.Body, len(rel.Stdout), rel.Exit))
	for _, k := range keys {
		if edverify.Verify(k, msg, sig) {
			return session, size, nil
		}
	}
	return "", 0, fmt.Errorf("%w: the signature does not verify (another process answering on the server's address, or the server's key changed: pin the new one)", ErrUnsigned)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
