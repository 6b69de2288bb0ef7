package server

import (
	"net/http"
	"strconv"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
)

// answer writes the gate's decision as the hook's 200 answer: Claude
// Code reads an HTTP hook's 2xx JSON body as the hook's output
// (permissionDecision), and so denies the call with the reason shown to
// the model. An allow (or no gate) writes nothing and returns false: the
// empty 200 of any recorded event. X-Logbook-Decision says what was
// decided, for logs and tests.
func (s *Server) answer(w http.ResponseWriter, hint hookevent.Hint, ev hookevent.Event, v *gate.Verdict) bool {
	if v == nil {
		return false
	}
	w.Header().Set("X-Logbook-Decision", string(v.Decision))
	w.Header().Set("X-Logbook-Enforced", strconv.FormatBool(v.Enforced))
	harness := ev.Harness
	if hint.Harness != "" {
		harness = hint.Harness
	}
	ans := orgpolicy.AnswerFor(harness, ev.Name, v.Result, v.Enforced)
	if len(ans.HTTP) == 0 {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(ans.HTTP)
	s.cfg.Log.Info("gate", "session", ev.Session, "event", ev.Name, "decision", v.Decision, "rule", v.Rule)
	return true
}

// denied answers a call the gate denied (or asked about) although its
// event could not be recorded: a failure to record must not let it run.
// The failure is logged and named in X-Logbook-Error.
func (s *Server) denied(w http.ResponseWriter, hint hookevent.Hint, ev hookevent.Event, v *gate.Verdict, err error) bool {
	if v == nil || v.Decision == orgpolicy.Allow || !v.Enforced {
		return false
	}
	s.cfg.Log.Error("gated call not recorded", "session", ev.Session, "event", ev.Name, "err", err)
	w.Header().Set("X-Logbook-Error", "not recorded")
	return s.answer(w, hint, ev, v)
}
