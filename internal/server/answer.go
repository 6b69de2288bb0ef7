package server

import (
	"crypto/ed25519"
	"encoding/hex"
	"net/http"

	"github.com/logbook-project/logbook/internal/hookpost"
)

// signAnswer signs what the server did with an event whose request
// carried a nonce (hookpost.NonceHeader): over TCP, a hook cannot
// otherwise tell the server's 200 from that of a process that took the
// server's port while it was down. The statement (hookpost.Statement)
// binds the nonce, the body's SHA-256, the session, the status, the
// session's size after the event and its chain tip then (head), and the
// answer itself (v2: its body's SHA-256, stdout length and exit status:
// what record-step relays to its harness); the key is the server's own (the
// checkpoint key, GET /v1/key's publicKey), which the agent never holds.
// Only a recorded event's 200 is signed: a refusal, or a gated call that
// was answered but not recorded, carries no signature, and the hook
// counts it as not sent.
func (s *Server) signAnswer(w http.ResponseWriter, nonce string, body [32]byte, session string, size int64, head string, ans hookpost.AnswerSum) {
	sig := ed25519.Sign(s.cfg.Key, hookpost.Statement(nonce, body, session, http.StatusOK, size, head, ans))
	w.Header().Set(hookpost.HeadHeader, head)
	w.Header().Set(hookpost.SignatureHeader, hex.EncodeToString(sig))
}
