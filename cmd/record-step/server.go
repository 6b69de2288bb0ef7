package main

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookpost"
)

// forwardTimeout bounds each step of a forward: the hook has seconds.
const forwardTimeout = 5 * time.Second

// forward sends the payload to a logbook server (--server URL) instead of
// recording it here: the server appends it to a journal the agent cannot
// reach. $LOGBOOK_SERVER_TOKEN, when set, goes as the bearer token, else
// the credential record-step install --enroll keeps (hookpost.Token). A
// refusal's code comes back in the server's JSON error; an empty 200 is
// recorded.
//
// seq, when not 0, is the event's number in its session (unsent.go),
// sent as X-Logbook-Seq.
//
// pinned, when not empty, are the server's public keys (--server-key,
// hex): the event goes with a fresh nonce, and a 200 counts only when it
// carries the server's signature over that nonce and this payload
// (hookpost.CheckAnswer). Over TCP nothing else tells the server from a
// process that took its port while it was down.
//
// The answer is the one the hook gives its harness (hookpost.Relay): the
// event goes with X-Logbook-Answer: command, and a server with an
// organization policy answers a gated call with what logbook-policy hook
// would write for it (the stdout JSON, the stderr reason, the exit
// status), which run relays byte for byte; with pinned keys, the
// signature binds it. An answer that cannot be read as one is an error:
// the hook cannot tell what was decided.
//
// wait, when over 0, is how many seconds the hook waits for a call the
// server holds for an approver (X-Logbook-Wait); the server answers
// before that.
func forward(server string, pinned []string, payload []byte, hint hookevent.Hint, cwd string, seq int64, wait int, getenv func(string) string) (hookpost.Relay, error) {
	var none hookpost.Relay
	t, err := hookpost.Parse(server)
	if err != nil {
		return none, err
	}
	var keys [][]byte
	for _, p := range pinned {
		k, err := hookpost.ParseKey(p)
		if err != nil {
			return none, fmt.Errorf("--server-key: %w", err)
		}
		keys = append(keys, k)
	}
	var nonce string
	if len(keys) > 0 {
		if nonce, err = hookpost.NewNonce(); err != nil {
			return none, err
		}
	}
	route := "/v1/hooks"
	if hint.Harness != "" {
		route += "/" + hint.Harness
	}
	if hint.Event != "" {
		route += "?event=" + hint.Event
	}
	headers := [][2]string{{hookpost.AnswerHeader, hookpost.AnswerCommand}}
	if cwd != "" && !strings.ContainsAny(cwd, "\r\n") {
		headers = append(headers, [2]string{"X-Logbook-Cwd", cwd})
	}
	if seq > 0 {
		headers = append(headers, seqHeader(seq))
	}
	if nonce != "" {
		headers = append(headers, [2]string{hookpost.NonceHeader, nonce})
	}
	if wait > 0 {
		headers = append(headers, [2]string{hookpost.WaitHeader, fmt.Sprint(wait)})
	}
	// Who the machine says its user is: a fleet's server records it as
	// the actor's asserted identity, beside the one it checked.
	if u := cmp.Or(getenv("USER"), getenv("USERNAME")); u != "" && !strings.ContainsAny(u, "\r\n") && len(u) <= 256 {
		headers = append(headers, [2]string{"X-Logbook-User", u})
	}
	tok := hookpost.Token(getenv)
	if tok != "" {
		headers = append(headers, [2]string{"Authorization", "Bearer " + tok})
	}
	resp, err := hookpost.PostWait(t, route, headers, payload, forwardTimeout, time.Duration(max(wait, 0))*time.Second)
	if err != nil {
		return none, fmt.Errorf("server %s: %w", server, err)
	}
	switch {
	case resp.Status == 401 && tok == "":
		// The one mistake that records nothing for a whole session: the
		// agent was started without the token in its environment.
		return none, fmt.Errorf("server %s answered 401: it wants a token, and LOGBOOK_SERVER_TOKEN is not set in the agent's environment: export it in the shell that starts the agent, then start again", server)
	case resp.Status == 401 && getenv("LOGBOOK_SERVER_TOKEN") == "":
		// The token came from the enrolled credential's file: say so, and
		// the server's own code (CREDENTIAL_REVOKED, CREDENTIAL_UNKNOWN).
		return none, fmt.Errorf("server %s answered 401: it refuses the enrolled credential in %s (%s): ask your admin for a new enrollment code (record-step install --server URL --enroll CODE)", server, hookpost.CredentialPath(getenv), printable(resp.Body, 256))
	case resp.Status == 401:
		return none, fmt.Errorf("server %s answered 401: it refuses the token in LOGBOOK_SERVER_TOKEN (the one logbook-server --token-file holds, or an enrolled credential?): %s", server, printable(resp.Body, 256))
	case resp.Status != 200:
		return none, fmt.Errorf("server %s answered %d: %s", server, resp.Status, printable(resp.Body, 512))
	}
	if len(keys) > 0 {
		if _, _, err := hookpost.CheckAnswer(resp, nonce, payload, keys); err != nil {
			return none, fmt.Errorf("server %s answered 200, but %v: the event is not taken as recorded", server, err)
		}
	}
	rel, err := hookpost.ParseRelay(resp)
	if err != nil {
		return none, fmt.Errorf("server %s answered 200, but %v: what it decided is not known", server, err)
	}
	return rel, nil
}

// printable is at most max bytes of a server's answer for stderr and
// errors.log, with controls, escapes and bidi marks as '?': whatever
// answers on that port must not drive the terminal that shows them.
func printable(b []byte, max int) string {
	if len(b) > max {
		b = b[:max]
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20, r >= 0x7f && r < 0xa0, r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			return '?'
		}
		return r
	}, strings.TrimSpace(string(b)))
}
