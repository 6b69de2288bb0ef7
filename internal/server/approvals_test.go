package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/verdict"
)

// holdEcho7 is a gate whose one rule holds the Bash call `echo 7` for an
// approver.
func holdEcho7(t *testing.T) *gate.Gate {
	t.Helper()
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","name":"t","rules":[{"name":"seven-needs-a-person","when":"tool == 'Bash' && input.command == 'echo 7'","decision":"hold","reason":"7 needs a person"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := gate.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return &gate.Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: p}}
}

const (
	aliceToken = "alice-token-0123456789"
	bobToken   = "bob-token-0123456789ab"
)

type heldAnswer struct {
	code     int
	decision string
	body     string
}

// sendHeld posts the held call `echo 7` as alice, the hook waiting wait
// seconds (0: no X-Logbook-Wait), and answers on the channel.
func sendHeld(t *testing.T, url, session string, wait int) <-chan heldAnswer {
	out := make(chan heldAnswer, 1)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(event(session, "PreToolUse", 7)))
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	if wait > 0 {
		req.Header.Set(server.WaitHeader, itoa(wait))
	}
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- heldAnswer{code: -1, body: err.Error()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out <- heldAnswer{resp.StatusCode, resp.Header.Get("X-Logbook-Decision"), string(b)}
	}()
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

type pending struct {
	ID     string   `json:"id"`
	Inputs []string `json:"inputsSha256"`
	Tool   string   `json:"tool"`
	Req    string   `json:"requester"`
}

// waitPending polls the queue as bob until a held call other than those
// in seen waits, and returns it. It gives up after a minute (the call was
// never parked).
func waitPending(t *testing.T, base string, seen map[string]bool) pending {
	t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		code, b := apiCall(t, "GET", base+"/v1/approvals", bobToken, nil)
		if code != 200 {
			t.Fatalf("list approvals: %d %s", code, b)
		}
		var l struct{ Approvals []pending }
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Approvals {
			if !seen[p.ID] {
				seen[p.ID] = true
				return p
			}
		}
	}
	t.Fatal("no held call reached the queue")
	return pending{}
}

func apiCall(t *testing.T, method, url, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestApprovals: a call the policy holds waits in the approvers' queue;
// the developer who asked cannot approve it, nor can anyone for other
// input digests or without the approver's role; another approver's
// approval lets it run once (the answer allows, a second approval finds
// nothing); the same call sent again waits again, and a denial and a
// timeout both answer deny, the hook's reason saying why. A hook that
// cannot wait is denied at once. The record holds each request and its
// resolution (the approver named and attested) right before the call,
// verifies, and its approvals match (no APPROVAL_MISMATCH).
func TestApprovals(t *testing.T) {
	t.Parallel()
	actor, err := server.ApproverTokens([]byte("# approvers\nalice " + aliceToken + "\nbob " + bobToken + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.Gate, c.Actor = holdEcho7(t), actor })
	base, hook := f.ts.URL, f.ts.URL+"/v1/hooks/claude-code"
	seen := map[string]bool{}

	if code, b := apiCall(t, "GET", base+"/v1/approvals", "", nil); code != 401 {
		t.Errorf("queue read with no token: %d %s", code, b)
	}
	if code, b := apiCall(t, "GET", base+"/v1/approvals", "not-an-approver-token", nil); code != 401 {
		t.Errorf("queue read with a stranger's token: %d %s", code, b)
	}

	// Approved, once.
	ans := sendHeld(t, hook, "appr-1", 60)
	p := waitPending(t, base, seen)
	if p.Tool != "Bash" || p.Req != "alice" || len(p.Inputs) != 1 {
		t.Fatalf("held call as listed: %+v", p)
	}
	decide := func(token, dec string, inputs []string) (int, string) {
		code, b := apiCall(t, "POST", base+"/v1/approvals/"+p.ID, token, map[string]any{"decision": dec, "inputsSha256": inputs})
		return code, string(b)
	}
	if code, b := decide(aliceToken, "approve", p.Inputs); code != 403 || !strings.Contains(b, "APPROVAL_SELF") {
		t.Errorf("self-approval: %d %s", code, b)
	}
	if code, b := decide(bobToken, "approve", []string{strings.Repeat("0", 64)}); code != 409 || !strings.Contains(b, "APPROVAL_INPUT") {
		t.Errorf("approval for another input: %d %s", code, b)
	}
	if code, b := decide(bobToken, "approve", p.Inputs); code != 200 {
		t.Fatalf("bob's approval: %d %s", code, b)
	}
	if a := <-ans; a.code != 200 || a.decision != "allow" || a.body != "" {
		t.Errorf("approved call's answer: %+v", a)
	}
	if code, b := decide(bobToken, "approve", p.Inputs); code != 404 || !strings.Contains(b, "APPROVAL_UNKNOWN") {
		t.Errorf("the approval used again: %d %s", code, b)
	}
	post(t, http.DefaultClient, hook, event("appr-1", "PostToolUse", 7))

	// The same call again waits again; bob denies it.
	ans = sendHeld(t, hook, "appr-1", 60)
	p = waitPending(t, base, seen)
	if code, b := apiCall(t, "POST", base+"/v1/approvals/"+p.ID, bobToken, map[string]any{"decision": "deny", "inputsSha256": p.Inputs, "reason": "not today"}); code != 200 {
		t.Fatalf("bob's denial: %d %s", code, b)
	}
	if a := <-ans; a.code != 200 || a.decision != "deny" || !strings.Contains(a.body, "denied by approver bob: not today") || !strings.Contains(a.body, `"permissionDecision":"deny"`) {
		t.Errorf("denied call's answer: %+v", a)
	}

	// Nobody decides: denied when the wait (the hook's 6 s less the
	// margin) runs out.
	ans = sendHeld(t, hook, "appr-1", 6)
	waitPending(t, base, seen)
	if a := <-ans; a.decision != "deny" || !strings.Contains(a.body, "no approver decided within 1s") {
		t.Errorf("expired call's answer: %+v", a)
	}
	// A hook that cannot wait: denied at once, saying why.
	if a := <-sendHeld(t, hook, "appr-1", 0); a.decision != "deny" || !strings.Contains(a.body, "cannot wait for an approver") {
		t.Errorf("a hook that cannot wait: %+v", a)
	}
	if code, b := post(t, http.DefaultClient, hook, event("appr-1", "SessionEnd", 0)); code != 200 {
		t.Fatalf("SessionEnd: %d %s", code, b)
	}
	code, rec := get(t, base+"/v1/sessions/appr-1/record")
	if code != 200 {
		t.Fatalf("record: %d %s", code, rec)
	}
	out := verdict.Run(verdict.Inputs{Record: rec})
	if !out.Result.OK || out.ApprovalMismatch != "" || out.DeniedRan != "" {
		t.Fatalf("record: %+v %q", out.Result, out.ApprovalMismatch)
	}
	var r struct {
		Steps []struct {
			Summary string
			Data    map[string]any
		}
	}
	json.Unmarshal(rec, &r)
	var gates []string
	for i, s := range r.Steps {
		if s.Data["event"] != "PolicyGate" {
			continue
		}
		g := s.Data["decision"].(string)
		if o, ok := s.Data["approvalDecision"].(string); ok {
			g += "/" + o
			if s.Data["approverAttested"] == true {
				g += "/" + s.Data["approver"].(string)
			}
			if r.Steps[i+1].Data["event"] != "PreToolUse" {
				t.Errorf("step %d: a resolution not right before its call", i)
			}
		}
		gates = append(gates, g)
	}
	want := "hold allow/approved/bob hold deny/denied/bob hold deny/expired hold deny/expired"
	if strings.Join(gates, " ") != want {
		t.Errorf("gate steps %q, want %q", strings.Join(gates, " "), want)
	}
}
