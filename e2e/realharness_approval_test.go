package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/oidcop"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// approvalPolicy holds every Bash call that writes ran.txt for an approver.
const approvalPolicy = `{"version":"logbook/policy@0","name":"approvals","default":"allow","onError":"deny","rules":[
 {"name":"ledger-needs-a-person","when":"tool == 'Bash' && has(input.command) && input.command.contains('ran.txt')","decision":"hold","reason":"writing the ledger needs a person's approval"}]}`

const (
	e2eAlice = "alice-e2e-token-0123456789"
	e2eBob   = "bob-e2e-token-0123456789ab"
)

// TestRealClaudeCodeApproval runs the real Claude Code CLI, its hooks
// installed with record-step install --server --command-hooks against
// logbook-server --policy (a rule that holds the ledger's writes)
// --approvers: the model asks three times for the same call, `echo run
// >> ran.txt`. Each waits in the approvers' queue (the hook's
// --server-wait and timeout written by install from the server's
// approvalWait); the developer's own approval is refused; bob approves
// the first (it runs: one line), denies the second and leaves the third
// until its wait runs out: neither runs (still one line), the model is
// told both reasons, and the server's record holds each request and its
// resolution (bob attested) and verifies with --policy-key.
func TestRealClaudeCodeApproval(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	dir := t.TempDir()
	signed, pub, _ := signedPolicy(t, t.TempDir(), approvalPolicy)
	approvers := filepath.Join(dir, "approvers")
	os.WriteFile(approvers, []byte("alice "+e2eAlice+"\nbob "+e2eBob+"\n"), 0o600)
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil,
		"--policy", signed, "--policy-key", pub, "--approvers", approvers, "--approval-wait", "20s")
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".logbook", "bin"), 0o755)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), "install", "--harness", "claude-code", "--project", proj, "--server", s.url, "--command-hooks")
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("install --server: %v\n%s", err, out)
	}
	cfg, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if !strings.Contains(string(cfg), "--server-wait 30") || !strings.Contains(string(cfg), `"timeout": 40`) {
		t.Fatalf("the gated hook does not wait for approvers (--server-wait 30, timeout 40):\n%s", cfg)
	}
	ledger := `{"command":"echo run >> ran.txt","description":"write the ledger"}`
	script := &fakemodel.Script{Turns: []fakemodel.Turn{
		{Text: "First.", Calls: []fakemodel.ToolCall{{ID: "toolu_ap1", Name: "Bash", Input: raw(ledger)}}},
		{Text: "Again.", Calls: []fakemodel.ToolCall{{ID: "toolu_ap2", Name: "Bash", Input: raw(ledger)}}},
		{Text: "Once more.", Calls: []fakemodel.ToolCall{{ID: "toolu_ap3", Name: "Bash", Input: raw(ledger)}}},
		{Text: "Done."},
	}}
	model, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	// The approver: bob approves the first held call, denies the second
	// and leaves the third; alice (who asked) tries first and is refused.
	var mu sync.Mutex
	var log []string
	note := func(f string, a ...any) { mu.Lock(); log = append(log, fmt.Sprintf(f, a...)); mu.Unlock() }
	stop := make(chan struct{})
	approverDone := make(chan struct{})
	go func() {
		defer close(approverDone)
		seen := map[string]bool{}
		for n := 0; n < 3; {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			var l struct {
				Approvals []struct {
					ID        string   `json:"id"`
					ToolUseID string   `json:"toolUseId"`
					Inputs    []string `json:"inputsSha256"`
					Requester string   `json:"requester"`
				}
			}
			if code, b := approverCall("GET", s.url+"/v1/approvals", e2eBob, nil); code != 200 || json.Unmarshal(b, &l) != nil {
				note("list: %d %s", code, b)
				return
			}
			for _, p := range l.Approvals {
				if seen[p.ID] {
					continue
				}
				seen[p.ID] = true
				n++
				note("held %s requester=%s", p.ToolUseID, p.Requester)
				body := map[string]any{"decision": "approve", "inputsSha256": p.Inputs}
				switch n {
				case 1:
					code, b := approverCall("POST", s.url+"/v1/approvals/"+p.ID, e2eAlice, body)
					note("alice approves her own: %d %s", code, bytes.TrimSpace(b))
					code, _ = approverCall("POST", s.url+"/v1/approvals/"+p.ID, e2eBob, body)
					note("bob approves: %d", code)
				case 2:
					body["decision"], body["reason"] = "deny", "not twice"
					code, _ := approverCall("POST", s.url+"/v1/approvals/"+p.ID, e2eBob, body)
					note("bob denies: %d", code)
				}
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "write the ledger", "--permission-mode", "bypassPermissions", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=",
		"LOGBOOK_SERVER_TOKEN="+e2eAlice) // alice's hooks: she is the requester
	out, err := cmd.CombinedOutput()
	close(stop)
	<-approverDone
	mu.Lock()
	t.Logf("approver: %s", strings.Join(log, "; "))
	all := strings.Join(log, "\n")
	mu.Unlock()
	if err != nil {
		t.Fatalf("claude: %v\n%s\n%s", err, out, s.stderr)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(out, &res); res.SessionID == "" {
		t.Fatalf("no session id: %s", out)
	}
	if !strings.Contains(all, "requester=alice") || !strings.Contains(all, "alice approves her own: 403") || !strings.Contains(all, "bob approves: 200") || !strings.Contains(all, "bob denies: 200") {
		t.Errorf("the approver's view:\n%s", all)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, "ran.txt")); string(got) != "run\n" {
		t.Errorf("ran.txt %q: the approved call must run once, the denied and the expired ones not at all", got)
	}
	told := map[string]bool{}
	for _, r := range model.Requests() {
		for _, w := range []string{"denied by approver bob: not twice", "no approver decided within 20s"} {
			if strings.Contains(string(r.Body), w) {
				told[w] = true
			}
		}
	}
	if len(told) != 2 {
		t.Errorf("the model was not told both reasons: %v", told)
	}
	var rec []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && rec == nil; time.Sleep(100 * time.Millisecond) {
		if r, err := readGet(s.url + "/v1/sessions/" + res.SessionID + "/record"); err == nil {
			if r.StatusCode == 200 {
				rec, _ = io.ReadAll(r.Body)
			}
			r.Body.Close()
		}
	}
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, rec, 0o644)
	vout, code := verifyArgs(t, "--pubkey", s.pub, "--policy-key", pub, file)
	if code != 0 {
		t.Fatalf("verify: %s\n%s", vout, s.stderr)
	}
	steps := readRecord(t, file).Steps
	var gates, posts []string
	for i, st := range steps {
		switch st.Data["event"] {
		case "PolicyGate":
			g := fmt.Sprint(st.Data["toolUseId"], ":", st.Data["decision"])
			if o, ok := st.Data["approvalDecision"]; ok {
				g += fmt.Sprint("/", o)
				if st.Data["approverAttested"] == true {
					g += fmt.Sprint("/", st.Data["approver"])
				}
				if i+1 >= len(steps) || steps[i+1].Data["event"] != "PreToolUse" {
					t.Errorf("step %d: a resolution not right before its PreToolUse", i)
				}
			}
			gates = append(gates, g)
		case "PostToolUse", "PostToolUseFailure":
			posts = append(posts, fmt.Sprint(st.Data["toolUseId"]))
		}
	}
	want := "toolu_ap1:hold toolu_ap1:allow/approved/bob toolu_ap2:hold toolu_ap2:deny/denied/bob toolu_ap3:hold toolu_ap3:deny/expired"
	if strings.Join(gates, " ") != want || strings.Join(posts, " ") != "toolu_ap1" {
		t.Errorf("gate steps %q (want %q), post-events %v (want the approved call's only)", strings.Join(gates, " "), want, posts)
	}
	testreport.Line(t, "real Claude Code "+strings.TrimPrefix(claudeCodePkg, "@anthropic-ai/claude-code@")+" through logbook-server with a held rule: the developer's own approval refused (403), bob's approval ran the call once, the same call again waited again and bob's denial and a 20 s timeout left it not run (the model told both), record verified with --policy-key: "+strings.TrimSpace(strings.SplitN(vout, "\n", 2)[0]))
}

// approverCall is one request to the approvals' routes as the holder of
// token.
func approverCall(method, url, token string, body any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, []byte(err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestRealClaudeCodeApprovalBrowser: the same held call through the real
// Claude Code CLI, the binary logbook-server a fleet (--oidc-config with
// the real OpenID provider, oidcop) with its console: dev1's hooks send
// dev1's OIDC token; appr1 signs in to the console in headless Chromium,
// approves the first held call with the button (it runs once: ran.txt
// holds one line) and denies the same call sent again (it does not run);
// the server's record verifies with --policy-key and names appr1 as the
// approver, attested.
func TestRealClaudeCodeApprovalBrowser(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	op := oidcop.Start(t)
	dir := t.TempDir()
	signed, pub, _ := signedPolicy(t, t.TempDir(), approvalPolicy)
	oidcCfg := filepath.Join(dir, "oidc.json")
	os.WriteFile(oidcCfg, []byte(`{"issuers":[{"issuer":"`+op.Issuer+`","audiences":["`+oidcop.Audience+`","`+oidcop.ConsoleClient+`"],"tenantClaim":"tenant","rolesClaim":"roles"}]}`), 0o600)
	secret := filepath.Join(dir, "console-secret")
	os.WriteFile(secret, []byte(oidcop.ConsoleSecret), 0o600)
	port := freePort(t)
	s := startServer(t, port, filepath.Join(dir, "data"), newServerKey(t, dir), nil,
		"--policy", signed, "--policy-key", pub, "--approval-wait", "40s", "--oidc-config", oidcCfg,
		"--console-url", "http://"+port, "--console-issuer", op.Issuer, "--console-client", oidcop.ConsoleClient, "--console-secret-file", secret)
	devToken := op.Token(t, "dev1")
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".logbook", "bin"), 0o755)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), "install", "--harness", "claude-code", "--project", proj, "--server", s.url, "--command-hooks")
	inst.Env = append(os.Environ(), "LOGBOOK_SERVER_TOKEN="+devToken)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("install --server: %v\n%s", err, out)
	}
	if cfg, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json")); !strings.Contains(string(cfg), "--server-wait 50") {
		t.Fatalf("the gated hook does not wait for approvers:\n%s", cfg)
	}
	ledger := `{"command":"echo run >> ran.txt","description":"write the ledger"}`
	model, err := fakemodel.Anthropic(&fakemodel.Script{Turns: []fakemodel.Turn{
		{Text: "First.", Calls: []fakemodel.ToolCall{{ID: "toolu_bw1", Name: "Bash", Input: raw(ledger)}}},
		{Text: "Again.", Calls: []fakemodel.ToolCall{{ID: "toolu_bw2", Name: "Bash", Input: raw(ledger)}}},
		{Text: "Done."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, "-p", "write the ledger", "--permission-mode", "bypassPermissions", "--output-format", "json")
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "LOGBOOK_SERVER_TOKEN="+devToken)
		out, err := cmd.CombinedOutput()
		done <- result{out, err}
	}()
	f := &consoleFixture{op: op, url: s.url}
	appr := newConsoleBrowser(t)
	appr.signIn(t, f, "appr1")
	appr.waitCall(t, f, 1)
	if who := appr.text(t, `li.call .requester`); who != "dev1" {
		t.Errorf("requester shown: %q", who)
	}
	appr.run(t, chromedp.Click(chromedp.CSS(`li.call button.approve`)), chromedp.WaitVisible(chromedp.CSS(`p.done`)))
	appr.waitCall(t, f, 1)
	appr.run(t, chromedp.SendKeys(chromedp.CSS(`li.call input[name=reason]`), "once is enough"),
		chromedp.Click(chromedp.CSS(`li.call button.deny`)), chromedp.WaitVisible(chromedp.CSS(`p.done`)))
	res := <-done
	if res.err != nil {
		t.Fatalf("claude: %v\n%s\n%s", res.err, res.out, s.stderr)
	}
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(res.out, &sess); sess.SessionID == "" {
		t.Fatalf("no session id: %s", res.out)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, "ran.txt")); string(got) != "run\n" {
		t.Errorf("ran.txt %q: the call approved in the browser must run once, the denied one not", got)
	}
	var rec []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && rec == nil; time.Sleep(100 * time.Millisecond) {
		req, _ := http.NewRequest("GET", s.url+"/v1/sessions/"+sess.SessionID+"/record", nil)
		req.Header.Set("Authorization", "Bearer "+devToken)
		if r, err := http.DefaultClient.Do(req); err == nil {
			if r.StatusCode == 200 {
				rec, _ = io.ReadAll(r.Body)
			}
			r.Body.Close()
		}
	}
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, rec, 0o644)
	if vout, code := verifyArgs(t, "--pubkey", s.pub, "--policy-key", pub, file); code != 0 {
		t.Fatalf("verify: %s\n%s", vout, s.stderr)
	}
	var gates []string
	for _, st := range readRecord(t, file).Steps {
		if st.Data["event"] == "PolicyGate" {
			g := fmt.Sprint(st.Data["toolUseId"], ":", st.Data["decision"])
			if o, ok := st.Data["approvalDecision"]; ok {
				g += fmt.Sprint("/", o, "/", st.Data["approver"])
			}
			gates = append(gates, g)
		}
	}
	want := "toolu_bw1:hold toolu_bw1:allow/approved/appr1 toolu_bw2:hold toolu_bw2:deny/denied/appr1"
	if strings.Join(gates, " ") != want {
		t.Errorf("gate steps %q, want %q", strings.Join(gates, " "), want)
	}
	if !bytes.Contains(rec, []byte(`"subject":"appr1"`)) {
		t.Error("the record does not name appr1 as an attested actor")
	}
	testreport.Line(t, "real Claude Code through a fleet logbook-server (OIDC, oidcop): appr1 approved the held call in the console in Chromium (it ran once) and denied it sent again (not run); record verified with --policy-key, appr1 the attested approver")
}
