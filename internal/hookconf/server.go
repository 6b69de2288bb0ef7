package hookconf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// hookRoute is the server's hook route; the harness's name follows it.
const hookRoute = "/v1/hooks/"

// CheckServer accepts a server base URL for --server: http:// or
// https://, a host, no query, no fragment, no white space or quotes; or
// unix:/PATH, the server's Unix socket.
func CheckServer(u string) error {
	if p, ok := strings.CutPrefix(u, "unix:"); ok {
		if !strings.HasPrefix(p, "/") || len(p) > 107 || strings.ContainsAny(u, " \t\r\n\"'`$\\?#;&|<>*") {
			return fmt.Errorf("--server %q: want unix:/ABSOLUTE/PATH (no spaces, quotes or shell characters)", u)
		}
		return nil
	}
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		rest, ok = strings.CutPrefix(u, "https://")
	}
	if !ok || rest == "" || strings.HasPrefix(rest, "/") || strings.ContainsAny(u, " \t\r\n\"'`$\\?#") {
		return fmt.Errorf("--server %q: want http://HOST:PORT (no query, quotes or spaces)", u)
	}
	return nil
}

// httpHook reports whether event e is written as an HTTP hook. A Unix
// socket takes record-step --server commands for every event: Claude
// Code's HTTP hooks reach TCP only, and cannot check who answers; so does
// CommandHooks.
func (t Target) httpHook(e Event) bool {
	return t.Server != "" && !strings.HasPrefix(t.Server, "unix:") && t.Spec.HTTPHandler != nil && !t.Spec.NoHTTP[e.Name] && !t.CommandHooks
}

// HTTPHooks reports whether any event of the target is written as an
// HTTP hook (whose answers nothing checks).
func (t Target) HTTPHooks() bool {
	for _, e := range t.Spec.Events {
		if t.httpHook(e) {
			return true
		}
	}
	return false
}

// serverCommand is what an event sends to the server: the hook URL for an
// HTTP hook, else a record-step --server command (which forwards; the
// server seals at SessionEnd, so no event runs logbook-seal).
func (t Target) serverCommand(e Event) string {
	base := strings.TrimSuffix(t.Server, "/")
	if t.httpHook(e) {
		return base + hookRoute + t.Spec.Harness
	}
	if t.Shell != ShellPOSIX {
		return t.plainServerCommand(e, base)
	}
	path := t.Bin + "/record-step" + t.Exe
	c := path + " --harness " + t.Spec.Harness
	if e.Named {
		c += " --event " + e.Name
	}
	// As Command: a missing binary is said in one line, and the agent
	// goes on.
	msg := "logbook: record-step is missing, so this event is not sent to the logbook server: run record-step install --harness " + t.Spec.Harness + " --server URL"
	c += " --server " + base
	if t.ServerKey != "" {
		c += " --server-key " + t.ServerKey
	}
	exit := " exit 0; }; "
	if t.ServerGates && !e.Seal && Gated(e.Name) {
		// The server's policy decides this call: what cannot be
		// confirmed is blocked (docs/policy.md, "Through the server").
		c += " --fail-closed"
		if t.ServerWait > 0 {
			c += " --server-wait " + strconv.Itoa(t.ServerWait)
		}
		msg = "logbook: record-step is missing, so the policy of the logbook server cannot decide this call and it is blocked: run record-step install --harness " + t.Spec.Harness + " --server URL"
		exit = " exit 2; }; "
	}
	return "test -x " + path + " || { " + t.missing(e, msg, "record-step") + exit + c + t.DirFlag
}

// handler is the handler install writes for e: a gated record-step
// --server hook that waits for approvers (ServerWait) gets a timeout 10 s
// longer than its wait, so that the harness never kills it first (which
// would let the call run, or block it without a word).
func (t Target) handler(e Event) node {
	if t.httpHook(e) {
		return t.Spec.HTTPHandler(t.Command(e), e.Seal)
	}
	h := t.Spec.Handler(t.Command(e), e.Seal)
	if t.Server != "" && t.ServerGates && t.ServerWait > 0 && !e.Seal && Gated(e.Name) {
		for i := range h.members {
			if strings.HasPrefix(h.members[i].key, "timeout") { // timeout, timeoutSec
				h.members[i].val = num(t.ServerWait + 10)
			}
		}
	}
	return h
}

// serverURL returns the URL of an HTTP hook handler that posts to a
// logbook server's hook route.
func serverURL(h *strictjson.Value) (string, bool) {
	if typ, _ := h.GetString("type"); typ != "http" {
		return "", false
	}
	u, _ := h.GetString("url")
	return u, strings.Contains(u, hookRoute)
}
