package server

import (
	"net/http"
	"strconv"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
)

// reply is the body of a hook's 200 answer and what a command hook does
// with it (hookpost.Relay): for an HTTP hook, the JSON Claude Code reads
// as the hook's output; for record-step --server (relay: the request
// carried hookpost.AnswerHeader), the stdout, stderr and exit status
// logbook-policy hook would give its harness for the same call, which
// record-step relays byte for byte.
type reply struct {
	body   []byte
	stdout int // the length of body's stdout part (relay)
	exit   int
	relay  bool
	v      *gate.Verdict
}

// replyFor is the answer to a recorded event: the gate's decision, when
// the event was gated; else the empty 200 of any recorded event. An
// allow writes nothing: the policy does not object.
func replyFor(hint hookevent.Hint, ev hookevent.Event, v *gate.Verdict, relay bool) reply {
	rp := reply{relay: relay, v: v}
	if v == nil {
		return rp
	}
	harness := ev.Harness
	if hint.Harness != "" {
		harness = hint.Harness
	}
	ans := orgpolicy.AnswerFor(harness, ev.Name, v.Result, v.Enforced)
	if relay {
		rp.body = append(append([]byte(nil), ans.Stdout...), ans.Stderr...)
		rp.stdout, rp.exit = len(ans.Stdout), ans.Exit
	} else {
		rp.body = ans.HTTP
	}
	return rp
}

// sum is what a signed answer binds of the reply.
func (rp reply) sum() hookpost.AnswerSum { return hookpost.SumOf(rp.body, rp.stdout, rp.exit) }

// write writes the reply as the 200 answer. X-Logbook-Decision says what
// was decided, for logs and tests.
func (s *Server) write(w http.ResponseWriter, ev hookevent.Event, rp reply) {
	if rp.v != nil {
		w.Header().Set("X-Logbook-Decision", string(rp.v.Decision))
		w.Header().Set("X-Logbook-Enforced", strconv.FormatBool(rp.v.Enforced))
		s.cfg.Log.Info("gate", "session", ev.Session, "event", ev.Name, "decision", string(rp.v.Decision), "rule", rp.v.Rule)
	}
	if rp.relay {
		w.Header().Set(hookpost.ExitHeader, strconv.Itoa(rp.exit))
		w.Header().Set(hookpost.StdoutHeader, strconv.Itoa(rp.stdout))
	}
	if len(rp.body) > 0 {
		if rp.relay {
			w.Header().Set("Content-Type", "application/octet-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(rp.body)))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(rp.body)
}

// denied answers a call the gate denied (or asked about) although its
// event could not be recorded: a failure to record must not let it run.
// The failure is logged and named in X-Logbook-Error. The answer is not
// signed (nothing was recorded): record-step --server-key takes it as
// not recorded, and blocks the call under --fail-closed.
func (s *Server) denied(w http.ResponseWriter, hint hookevent.Hint, ev hookevent.Event, v *gate.Verdict, relay bool, err error) bool {
	if v == nil || v.Decision == orgpolicy.Allow || !v.Enforced {
		return false
	}
	s.cfg.Log.Error("gated call not recorded", "session", ev.Session, "event", ev.Name, "err", err)
	w.Header().Set("X-Logbook-Error", "not recorded")
	s.write(w, ev, replyFor(hint, ev, v, relay))
	return true
}
