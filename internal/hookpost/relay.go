package hookpost

import (
	"bytes"
	"errors"
	"strconv"
)

// Relay is the answer a command hook gives its harness for a gated call:
// what logbook-policy hook writes when it gates the call itself
// (orgpolicy.AnswerFor's Stdout, Stderr and Exit), computed by the
// server, relayed by record-step --server byte for byte. The zero Relay
// (exit 0, nothing written) is the answer to any other event.
type Relay struct {
	Stdout, Stderr []byte
	Exit           int
}

// ErrRelay is ParseRelay's error: the 200 does not hold an answer a
// command hook can relay.
var ErrRelay = errors.New("the answer is not a command hook's answer")

// ParseRelay reads the relayed answer of a 200 to a request that carried
// AnswerHeader: AnswerCommand. An empty body without ExitHeader is the
// zero Relay; a body needs ExitHeader (0 or 2: the only statuses a gate
// answers) and StdoutHeader (at most the body's length). Anything else
// (a server that does not relay, a garbled answer) is ErrRelay: a
// command hook cannot tell what was decided, and must not guess.
func ParseRelay(r Response) (Relay, error) {
	if te := r.Header("Transfer-Encoding"); te != "" && te != "identity" {
		return Relay{}, errors.Join(ErrRelay, errors.New("a body sent with Transfer-Encoding "+strconv.Quote(clip(te))))
	}
	if cl := r.Header("Content-Length"); cl != "" && cl != strconv.Itoa(len(r.Body)) {
		return Relay{}, errors.Join(ErrRelay, errors.New("the body is not Content-Length long (cut off?)"))
	}
	exit, split := r.Header(ExitHeader), r.Header(StdoutHeader)
	if exit == "" && split == "" {
		if len(r.Body) == 0 {
			return Relay{}, nil
		}
		return Relay{}, errors.Join(ErrRelay, errors.New("a body without "+ExitHeader+" (a server older than record-step, or not a logbook server)"))
	}
	e, err1 := strconv.Atoi(exit)
	n, err2 := strconv.Atoi(split)
	if err1 != nil || err2 != nil || (e != 0 && e != 2) || n < 0 || n > len(r.Body) || r.Truncated {
		return Relay{}, errors.Join(ErrRelay, errors.New(ExitHeader+" "+strconv.Quote(clip(exit))+", "+StdoutHeader+" "+strconv.Quote(clip(split))+": not an exit status of 0 or 2 and a length within the body"))
	}
	if allows(r.Body[:n]) {
		return Relay{}, errors.Join(ErrRelay, errors.New("its stdout says allow, which a logbook server never answers (a hook's allow would skip the harness's own permission rules)"))
	}
	return Relay{Stdout: r.Body[:n], Stderr: r.Body[n:], Exit: e}, nil
}

// allows reports whether stdout could tell a harness to allow a call.
// The server never does (orgpolicy.AnswerFor: an allow says nothing), so
// such an answer comes from something else on the server's port (over
// TCP without --server-key nothing tells who answers): relaying it would
// let that process skip the harness's own permission rules, more than
// the empty 200 it can give anyway. The server's answers are
// encoding/json's, which escapes no letter: "allow" spelled with \u
// escapes of letters is refused too.
func allows(stdout []byte) bool {
	if bytes.Contains(stdout, []byte(`"allow"`)) {
		return true
	}
	for i := 0; i+5 < len(stdout); i++ {
		if stdout[i] == '\\' && stdout[i+1] == 'u' && stdout[i+2] == '0' && stdout[i+3] == '0' && stdout[i+4] >= '4' && stdout[i+4] <= '7' {
			return true
		}
	}
	return false
}
