package orgpolicy

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
)

var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))

const minimal = `{"version":"logbook/policy@0","rules":[{"name":"r","when":"tool == 'Bash'","decision":"deny","reason":"no shell"}]}`

func withRedact(ptrs ...string) string {
	b, _ := json.Marshal(ptrs)
	return strings.Replace(minimal, `{"version"`, `{"redact":`+string(b)+`,"version"`, 1)
}

func code(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

// TestRedactScope: a pointer may select only tool arguments and results.
func TestRedactScope(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ptr, want string
	}{
		{"/tool_input/password", ""},
		{"/tool_response", ""},
		{"/toolArgs/a~1b/0", ""},
		{"/session_id", ErrRedactScope},
		{"/tool_use_id", ErrRedactScope},
		{"/hook_event_name", ErrRedactScope},
		{"/permission_mode", ErrRedactScope},
		{"/transcript_path", ErrRedactScope},
		{"", ErrMalformed},
		{"tool_input", ErrMalformed},
		{"/tool_input/a~2", ErrMalformed},
	} {
		_, err := ParseText([]byte(withRedact(c.ptr)))
		if code(err) != c.want {
			t.Errorf("%q: %v, want %q", c.ptr, err, c.want)
		}
	}
}

func TestRedactPayload(t *testing.T) {
	t.Parallel()
	p, err := ParseText([]byte(withRedact("/tool_input/content", "/tool_input/env/TOKEN", "/tool_input/list/1", "/tool_response/nothing", "/tool_input")))
	if err != nil {
		t.Fatal(err)
	}
	p.Redact = p.Redact[:4] // the whole tool_input is tried alone below
	in := []byte(`{"session_id":"s","tool_input":{"content":"secret\n","env":{"TOKEN":{"x":1}},"list":[1, 2 ,3]},"tool_response":"ok"}`)
	got := string(p.RedactPayload(in))
	want := `{"session_id":"s","tool_input":{"content":"[REDACTED]","env":{"TOKEN":"[REDACTED]"},"list":[1, "[REDACTED]" ,3]},"tool_response":"ok"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	p.Redact = []string{"/tool_input", "/tool_input/content"} // nested: the outer one wins
	if got := string(p.RedactPayload(in)); got != `{"session_id":"s","tool_input":"[REDACTED]","tool_response":"ok"}` {
		t.Errorf("nested: %s", got)
	}
	if got := p.RedactPayload([]byte("not json")); string(got) != "not json" {
		t.Errorf("not JSON changed: %s", got)
	}
}

func TestSignOpen(t *testing.T) {
	t.Parallel()
	file, p, err := Sign([]byte(minimal), testKey)
	if err != nil {
		t.Fatal(err)
	}
	pub := testKey.Public().(ed25519.PublicKey)
	s, err := Open(file, []ed25519.PublicKey{pub})
	if err != nil || s.Digest != p.Digest || len(s.Rules) != 1 || s.Default != Allow || s.OnError != Deny {
		t.Fatalf("%v %+v", err, s)
	}
	// The digest is of the canonical policy: whitespace and member order
	// do not change it.
	_, p2, _ := Sign([]byte(" {\"rules\":[{\"decision\":\"deny\",\"reason\":\"no shell\",\"when\":\"tool == 'Bash'\",\"name\":\"r\"}], \"version\":\"logbook/policy@0\"}"), testKey)
	if p2.Digest != p.Digest {
		t.Error("the digest depends on formatting")
	}
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, 32)).Public().(ed25519.PublicKey)
	for _, c := range []struct {
		name string
		file []byte
		keys []ed25519.PublicKey
		want string
	}{
		{"untrusted", file, []ed25519.PublicKey{other}, ErrUntrusted},
		{"edited rule", bytes.Replace(file, []byte("no shell"), []byte("no shelL"), 1), nil, ErrSignature},
		{"weak key", weakKeyFile(t, file), nil, ErrSignature},
		{"duplicate key", bytes.Replace(file, []byte(`{"policy":`), []byte(`{"x":1,"x":2,"policy":`), 1), nil, ErrMalformed},
		{"extra member", bytes.Replace(file, []byte(`{"policy":`), []byte(`{"x":1,"policy":`), 1), nil, ErrMalformed},
		{"uppercase hex", bytes.ToUpper(file), nil, ErrMalformed},
		{"too large", append(file, bytes.Repeat([]byte(" "), MaxFile)...), nil, ErrTooLarge},
	} {
		if _, err := Open(c.file, c.keys); code(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// weakKeyFile puts a small-order key (the identity point) in the
// signature: under it, crypto/ed25519 alone would accept a forgery.
func weakKeyFile(t *testing.T, file []byte) []byte {
	var v struct{ Signature struct{ PublicKey string } }
	json.Unmarshal(file, &v)
	weak := "302a300506032b6570032100" + "01" + strings.Repeat("00", 31)
	return bytes.Replace(file, []byte(v.Signature.PublicKey), []byte(weak), 1)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []string{
		`[]`,
		`{"version":"logbook/policy@1"}`,
		`{"version":"logbook/policy@0","default":"maybe"}`,
		`{"version":"logbook/policy@0","mode":"relaxed"}`,
		`{"version":"logbook/policy@0","rules":[{"name":"a","when":"true","decision":"deny"},{"name":"a","when":"true","decision":"deny"}]}`,
		`{"version":"logbook/policy@0","rules":[{"name":"a b","when":"true","decision":"deny"}]}`,
		`{"version":"logbook/policy@0","rules":[{"name":"a","when":"","decision":"deny"}]}`,
		`{"version":"logbook/policy@0","rules":[{"name":"a","when":"true"}]}`,
		`{"version":"logbook/policy@0","rules":[{"name":"a","when":"true","decision":"deny","extra":"x"}]}`,
		`{"version":"logbook/policy@0","surprise":1}`,
	} {
		if _, err := ParseText([]byte(c)); code(err) != ErrMalformed {
			t.Errorf("%s: %v", c, err)
		}
	}
}

func TestAnswerFor(t *testing.T) {
	t.Parallel()
	deny := Result{Decision: Deny, Rule: "no-rm-rf", Reason: "not here"}
	for _, c := range []struct {
		harness, event string
		r              Result
		enforced       bool
		stdout, stderr string
		exit           int
	}{
		{"claude-code", "PreToolUse", deny, true, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"logbook policy rule no-rm-rf: not here"}}` + "\n", "", 0},
		{"claude-code", "PreToolUse", Result{Decision: Ask, Reason: "a person decides"}, true, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"logbook policy: a person decides"}}` + "\n", "", 0},
		{"claude-code", "PermissionRequest", deny, true, `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"logbook policy rule no-rm-rf: not here"},"hookEventName":"PermissionRequest"}}` + "\n", "", 0},
		{"codex", "PreToolUse", Result{Decision: Ask, Reason: "r"}, true, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"needs approval: logbook policy: r"}}` + "\n", "", 0},
		{"gemini", "PreToolUse", deny, true, "", "logbook policy rule no-rm-rf: not here\n", 2},
		{"cursor 2.0.77", "PreToolUse", deny, true, `{"agent_message":"logbook policy rule no-rm-rf: not here","permission":"deny","user_message":"logbook policy rule no-rm-rf: not here"}` + "\n", "", 0},
		{"copilot-cli", "PreToolUse", deny, true, `{"permissionDecision":"deny","permissionDecisionReason":"logbook policy rule no-rm-rf: not here"}` + "\n", "", 0},
		{"claude-code", "PreToolUse", Result{Decision: Allow}, true, "", "", 0},
		{"claude-code", "PreToolUse", deny, false, "", "logbook policy (audit mode, not enforced): would deny: not here\n", 0},
	} {
		a := AnswerFor(c.harness, c.event, c.r, c.enforced)
		if string(a.Stdout) != c.stdout || a.Stderr != c.stderr || a.Exit != c.exit {
			t.Errorf("%s %s %+v: stdout %s stderr %q exit %d", c.harness, c.event, c.r, a.Stdout, a.Stderr, a.Exit)
		}
	}
	// Every harness, and one no dialect names, is told a deny in a form
	// that blocks: exit 2, or JSON that says deny.
	for _, h := range append(kinds.Harnesses, "unknown") {
		a := AnswerFor(h, "PreToolUse", deny, true)
		if a.Exit != 2 && !strings.Contains(string(a.Stdout), `"deny"`) {
			t.Errorf("%s: a deny answered as stdout %s exit %d", h, a.Stdout, a.Exit)
		}
	}
}
