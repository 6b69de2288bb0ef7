package gate

import (
	"bytes"
	"cmp"
	"crypto/ed25519"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/testkit/synth"
	"github.com/logbook-project/logbook/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite testdata/gate from the generator")

const fixtureDir = "../../../testdata/gate"

// seeded is a fixed key, so that the fixtures come out the same bytes on
// every run (Ed25519 is deterministic).
func seeded(b byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, 32)) }

var (
	policyKey = seeded(0x51) // signs the organization policy; its .pub is the --policy-key
	otherKey  = seeded(0x52) // signs a policy nobody trusts
	sealKey   = seeded(0x53) // seals the records
)

// examplePolicy is the policy of docs/policy.md's example.
const examplePolicy = `{"version":"logbook/policy@0","name":"acme-default","default":"allow","onError":"deny",
"rules":[
 {"name":"no-rm-rf","when":"tool == 'Bash' && input.command.matches(r'rm\\s+-[a-zA-Z]*r[a-zA-Z]*f')","decision":"deny","reason":"recursive force-remove is not allowed; delete files by name"},
 {"name":"no-dotenv","when":"has(input.file_path) && input.file_path.endsWith('.env')","decision":"deny","reason":".env files hold secrets"}
]}`

func signedGate(t testing.TB, policy string, key ed25519.PrivateKey, trusted ed25519.PublicKey) *Gate {
	t.Helper()
	file, _, err := orgpolicy.Sign([]byte(policy), key)
	if err != nil {
		t.Fatal(err)
	}
	g := Load(file, []ed25519.PublicKey{trusted}, orgpolicy.Deny, "")
	if g.LoadErr != nil {
		t.Fatal(g.LoadErr)
	}
	return g
}

func call(id, event, tool, input string) []byte {
	extra := ""
	if strings.HasPrefix(event, "Post") {
		extra = `,"tool_response":"done"`
	}
	return []byte(fmt.Sprintf(`{"session_id":"gate-fixture","cwd":"/work","hook_event_name":%q,"tool_name":%q,"tool_use_id":%q,"tool_input":%s%s}`, event, tool, id, input, extra))
}

// event is one hook payload and the gate it goes through (nil: none, as
// when the hooks lost --policy).
type event struct {
	payload []byte
	gate    *Gate
}

// holds are the gates of held calls (heldCall: a copy of the holding
// gate for each), and how each call's approval went.
var (
	holdsMu sync.Mutex
	holds   = map[*Gate]*held{}
)

// held is how a held call's approval went (docs/approvals.md): the
// request for approval id, by requester, open until expires, then its
// resolution by approver (none: the call went ahead unresolved).
type held struct {
	id, requester, approver, expires string
	dec                              orgpolicy.Decision
	none                             bool
	resolveAs                        string // the approval the resolution names, when not id
}

// build records the events through the recorder, as record-step and
// logbook-policy hook do, at fixed instants, and seals. shown, when
// given, maps an event's index to what its gate is shown instead of its
// payload: a hook binary swapped for a wrapper that shows the gate a
// harmless call while the real one is recorded (and runs).
func build(t testing.TB, events []event, shown ...map[int][]byte) []byte {
	t.Helper()
	dir := t.TempDir()
	for i, e := range events {
		at := fmt.Sprintf("2026-12-01T10:00:%02dZ", i)
		o := recorder.Options{Now: func() string { return at }}
		var v *Verdict
		p := e.gate.Wire(e.payload, &o, &v)
		if len(shown) > 0 && shown[0][i] != nil {
			e.gate.Wire(shown[0][i], &o, &v)
			ev, err := hookevent.Parse(shown[0][i])
			if err != nil {
				t.Fatal(err)
			}
			gate := o.Gate
			o.Gate = func(hookevent.Event) *chain.Step { return gate(ev) }
		}
		holdsMu.Lock()
		h := holds[e.gate]
		holdsMu.Unlock()
		if h != nil {
			inner := o.Gate
			o.Gate = func(ev hookevent.Event) *chain.Step {
				st := inner(ev)
				if v.Decision != orgpolicy.Hold {
					t.Fatalf("event %d: %s, not held", i, v.Decision)
				}
				asked := Asked(v, h.id, h.expires, h.requester)
				asked.Step.At = at
				j, err := journalfile.Open(dir, "gate-fixture")
				if err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				if _, err := j.Append(journalfile.Header{Session: "gate-fixture", Cwd: "/work", Harness: "claude-code"}, []chain.Step{asked.Step}); err != nil {
					t.Fatal(err)
				}
				if h.none { // let through with no approval: the hold ignored
					Resolve(v, "", orgpolicy.Allow, "", "as the fixture says")
					return &v.Step
				}
				_ = st
				Resolve(v, cmp.Or(h.resolveAs, h.id), h.dec, h.approver, "as the fixture says")
				return &v.Step
			}
		}
		if _, err := recorder.Record(dir, p, "", "/work", o); err != nil {
			t.Fatal(err)
		}
	}
	j, err := journalfile.Open(dir, "gate-fixture")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := seal.Seal(j, sealKey, seal.Options{Now: "2026-12-01T10:59:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Record
}

// fixtures are the records of step 12, each named for its verdict.
func fixtures(t testing.TB) map[string][]byte {
	good := signedGate(t, examplePolicy, policyKey, policyKey.Public().(ed25519.PublicKey))
	audit := signedGate(t, strings.Replace(examplePolicy, `"onError":"deny",`, `"onError":"deny","mode":"audit",`, 1), policyKey, policyKey.Public().(ed25519.PublicKey))
	stranger := signedGate(t, examplePolicy, otherKey, otherKey.Public().(ed25519.PublicKey))
	forged := *good
	s := *good.Signed
	s.Signature = strings.Repeat("ab", 64)
	forged.Signed = &s
	broken := Failed(orgpolicy.ErrSignature, "the signature does not verify over the policy's digest", orgpolicy.Deny)
	ls := call("toolu_1", "PreToolUse", "Bash", `{"command":"ls"}`)
	lsPost := call("toolu_1", "PostToolUse", "Bash", `{"command":"ls"}`)
	rm := call("toolu_2", "PreToolUse", "Bash", `{"command":"rm -rf build"}`)
	rmPost := call("toolu_2", "PostToolUse", "Bash", `{"command":"rm -rf build"}`)
	lsAs2 := call("toolu_2", "PreToolUse", "Bash", `{"command":"ls"}`) // what a swapped hook shows the gate
	rmFail := call("toolu_2", "PostToolUseFailure", "Bash", `{"command":"rm -rf build"}`)
	env := call("toolu_3", "PreToolUse", "Read", `{"file_path":"/work/.env"}`)
	late := call("toolu_4", "PreToolUse", "Bash", `{"command":"echo later"}`)
	holding := signedGate(t, strings.Replace(examplePolicy, `"rules":[`, `"rules":[
 {"name":"push-needs-a-person","when":"tool == 'Bash' && input.command.startsWith('git push')","decision":"hold","reason":"pushing needs a person's approval"},`, 1), policyKey, policyKey.Public().(ed25519.PublicKey))
	push := call("toolu_5", "PreToolUse", "Bash", `{"command":"git push"}`)
	pushPost := call("toolu_5", "PostToolUse", "Bash", `{"command":"git push"}`)
	push2 := call("toolu_6", "PreToolUse", "Bash", `{"command":"git push"}`)
	push2Post := call("toolu_6", "PostToolUse", "Bash", `{"command":"git push"}`)
	const until = "2026-12-01T10:05:00Z"
	byBob := &held{id: "a1", requester: "alice", approver: "bob", expires: until, dec: orgpolicy.Allow}
	heldCall := func(p []byte, h held) event {
		g := *holding
		holdsMu.Lock()
		holds[&g] = &h
		holdsMu.Unlock()
		return event{p, &g}
	}
	latePost := call("toolu_4", "PostToolUse", "Bash", `{"command":"echo later"}`)
	return map[string][]byte{
		"good_gated.json":                      build(t, []event{{ls, good}, {lsPost, nil}, {rm, good}, {env, good}}),
		"good_audit_denied_ran.json":           build(t, []event{{rm, audit}, {rmPost, nil}}),
		"fail_POLICY_MISSING_no_gate.json":     build(t, []event{{ls, nil}, {lsPost, nil}}),
		"fail_POLICY_MISSING_not_loaded.json":  build(t, []event{{ls, good}, {lsPost, nil}, {rm, broken}}),
		"fail_POLICY_UNTRUSTED_other_key.json": build(t, []event{{ls, stranger}, {lsPost, nil}}),
		"fail_POLICY_UNTRUSTED_forged.json":    build(t, []event{{ls, good}, {lsPost, nil}, {rm, &forged}}),
		"fail_GATE_MISSING_hooks_removed.json": build(t, []event{{ls, good}, {lsPost, nil}, {late, nil}, {latePost, nil}}),
		"fail_GATE_MISSING_post_only.json":     build(t, []event{{ls, good}, {lsPost, nil}, {latePost, nil}}),
		"fail_GATE_INPUT_MISMATCH_pre.json":    build(t, []event{{ls, good}, {lsPost, nil}, {rm, good}, {rmPost, nil}}, map[int][]byte{2: lsAs2}),
		"fail_GATE_INPUT_MISMATCH_post.json":   build(t, []event{{ls, good}, {lsPost, nil}, {lsAs2, good}, {rmPost, nil}}),
		"fail_DENIED_CALL_RAN_post.json":       build(t, []event{{ls, good}, {lsPost, nil}, {rm, good}, {rmPost, nil}}),
		"fail_DENIED_CALL_RAN_failure.json":    build(t, []event{{rm, good}, {rmFail, nil}}),
		"good_held.json": build(t, []event{heldCall(push, *byBob), {pushPost, nil},
			heldCall(push2, held{id: "a2", requester: "alice", approver: "bob", expires: until, dec: orgpolicy.Deny}),
			heldCall(push2, held{id: "a3", requester: "alice", expires: until, dec: orgpolicy.Deny})}),
		"fail_APPROVAL_MISMATCH_self.json":       build(t, []event{heldCall(push, held{id: "a1", requester: "alice", approver: "alice", expires: until, dec: orgpolicy.Allow}), {pushPost, nil}}),
		"fail_APPROVAL_MISMATCH_expired.json":    build(t, []event{heldCall(push, held{id: "a1", requester: "alice", approver: "bob", expires: "2026-12-01T09:59:59Z", dec: orgpolicy.Allow}), {pushPost, nil}}),
		"fail_APPROVAL_MISMATCH_unresolved.json": build(t, []event{heldCall(push, held{id: "a1", requester: "alice", expires: until, none: true}), {pushPost, nil}}),
		"fail_APPROVAL_MISMATCH_reused.json": build(t, []event{heldCall(push, *byBob), {pushPost, nil},
			heldCall(push2, held{id: "a2", requester: "alice", approver: "bob", expires: until, dec: orgpolicy.Allow, resolveAs: "a1"}), {push2Post, nil}}),
	}
}

func pubPEM(t testing.TB, k ed25519.PrivateKey) []byte {
	_, pub, err := keys.MarshalPair(k, k.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// TestGateFixtures: every file in testdata/gate is the
// generator's, and logbook-verify --policy-key policy.key.pub gives the
// verdict its name says; each code of step 12 has at least two.
func TestGateFixtures(t *testing.T) {
	want := fixtures(t)
	want["policy.key.pub"] = pubPEM(t, policyKey)
	if *update {
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(fixtureDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*"))
	per := map[format.Code]int{}
	var names []string
	for _, f := range files {
		name := filepath.Base(f)
		names = append(names, name)
		got, _ := os.ReadFile(f)
		if w, ok := want[name]; !ok || !bytes.Equal(got, w) {
			t.Errorf("%s is not the generator's output (go test ./internal/orgpolicy/gate -run TestGateFixtures -update)", name)
			continue
		}
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		out := verdict.Run(verdict.Inputs{Record: got, Gate: &verdict.GateInputs{Keys: []ed25519.PublicKey{policyKey.Public().(ed25519.PublicKey)}}})
		code := format.Code("")
		for _, c := range format.GateCodes {
			if strings.HasPrefix(name, "fail_"+string(c)+"_") {
				code = c
			}
		}
		if out.Result.Code != code || out.Result.OK != (code == "") {
			t.Errorf("%s: %s %s, want %q", name, out.Result.Code, out.Result.Detail, code)
		}
		per[code]++
	}
	if len(names) != len(want) {
		sort.Strings(names)
		t.Errorf("files %v, the generator makes %d", names, len(want))
	}
	for _, c := range append([]format.Code{""}, format.GateCodes...) {
		if per[c] < 2 {
			t.Errorf("code %q: %d fixtures, want ≥ 2", c, per[c])
		}
	}
	_ = edkey.SPKIPrefix
}

// TestRequirePolicy: --require-policy names the one policy accepted.
func TestRequirePolicy(t *testing.T) {
	t.Parallel()
	rec, err := os.ReadFile(filepath.Join(fixtureDir, "good_gated.json"))
	if err != nil {
		t.Fatal(err)
	}
	k := []ed25519.PublicKey{policyKey.Public().(ed25519.PublicKey)}
	good := signedGate(t, examplePolicy, policyKey, k[0])
	if c, d, sum := orgpolicy.CheckRecordSummary(rec, k, good.Signed.Digest); c != "" || sum.Gates != 3 || sum.Denied != 2 ||
		len(sum.Policies) != 1 || sum.Policies[0] != good.Signed.Digest {
		t.Errorf("the policy's own digest: %s %s %+v", c, d, sum)
	}
	if c, _ := orgpolicy.CheckRecord(rec, k, strings.Repeat("0", 64)); c != format.PolicyUntrusted {
		t.Errorf("another digest: %q, want POLICY_UNTRUSTED", c)
	}
}

// TestRedactedInputIsNoMismatch: a policy whose pointers redact a call's
// input changes its gated pre-event and not its post-event (recorded
// without the policy): the gate step says so, and the post-event's other
// input digest is no GATE_INPUT_MISMATCH; a pointer into the result only
// leaves the check whole.
func TestRedactedInputIsNoMismatch(t *testing.T) {
	t.Parallel()
	pub := policyKey.Public().(ed25519.PublicKey)
	for _, c := range []struct {
		redact string
		want   format.Code
	}{
		{`"/tool_input/command"`, ""},
		{`"/tool_response/stdout"`, ""},
	} {
		g := signedGate(t, strings.Replace(examplePolicy, `"onError":"deny",`, `"onError":"deny","redact":[`+c.redact+`],`, 1), policyKey, pub)
		ls := call("toolu_1", "PreToolUse", "Bash", `{"command":"ls"}`)
		lsPost := call("toolu_1", "PostToolUse", "Bash", `{"command":"ls"}`)
		rec := build(t, []event{{ls, g}, {lsPost, nil}})
		if code, d := orgpolicy.CheckRecord(rec, []ed25519.PublicKey{pub}, ""); code != c.want {
			t.Errorf("redact %s: %s %s, want %q", c.redact, code, d, c.want)
		}
		if got := bytes.Contains(rec, []byte(`"`+orgpolicy.RedactedField+`":true`)); got != strings.Contains(c.redact, "tool_input") {
			t.Errorf("redact %s: %s in the gate step: %v", c.redact, orgpolicy.RedactedField, got)
		}
	}
	// The same post-event after a gate that redacted nothing is refused.
	g := signedGate(t, examplePolicy, policyKey, pub)
	rec := build(t, []event{{call("toolu_1", "PreToolUse", "Bash", `{"command":"[REDACTED]"}`), g}, {call("toolu_1", "PostToolUse", "Bash", `{"command":"ls"}`), nil}})
	if code, d := orgpolicy.CheckRecord(rec, []ed25519.PublicKey{pub}, ""); code != format.GateInputMismatch {
		t.Errorf("no redaction: %s %s, want GATE_INPUT_MISMATCH", code, d)
	}
}

// TestEveryHarnessGatedInputsAgree: each harness's synthesized session
// (internal/testkit/synth, in its documented payload shapes), every event through
// the gate as the hooks send it, then GATE_INPUT_MISMATCH's check: no
// harness's post-event digests another input than its call's gate step,
// so the check refuses only a call the gate was not shown.
func TestEveryHarnessGatedInputsAgree(t *testing.T) {
	t.Parallel()
	pub := policyKey.Public().(ed25519.PublicKey)
	g := signedGate(t, `{"version":"logbook/policy@0","name":"allow-all","default":"allow","onError":"deny","rules":[]}`, policyKey, pub)
	for _, h := range append(append([]string{}, hookevent.Harnesses...), "copilot-cli-snake") {
		s, ok := synth.Dialect(h)
		if !ok {
			continue
		}
		t.Run(h, func(t *testing.T) {
			dir := t.TempDir()
			harness := strings.TrimSuffix(h, "-snake")
			for i, p := range s.Events {
				o := recorder.Options{Now: func() string { return s.Times[i] }}
				if s.Config != nil {
					o.Hint = hookevent.Hint{Harness: harness, Event: s.Config[i]}
				} else {
					o.Hint = hookevent.Hint{Harness: harness}
				}
				var v *Verdict
				rec := g.Wire(p, &o, &v)
				if _, err := recorder.Record(dir, rec, "", "/work", o); err != nil {
					t.Fatal(err)
				}
			}
			j, err := journalfile.Open(dir, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			res, err := seal.Seal(j, sealKey, seal.Options{Now: "2026-12-01T10:59:00Z"})
			if err != nil {
				t.Fatal(err)
			}
			if d := orgpolicy.InputMismatch(res.Record); d != "" {
				t.Errorf("%s: %s", h, d)
			}
			c, d, sum := orgpolicy.CheckRecordSummary(res.Record, []ed25519.PublicKey{pub}, "")
			t.Logf("%s: %d events, %d gated; --policy-key: %q %s", h, len(s.Events), sum.Gates, c, d)
		})
	}
}
