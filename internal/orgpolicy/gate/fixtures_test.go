package gate

import (
	"bytes"
	"crypto/ed25519"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
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

// build records the events through the recorder, as record-step and
// logbook-policy hook do, at fixed instants, and seals.
func build(t testing.TB, events []event) []byte {
	t.Helper()
	dir := t.TempDir()
	for i, e := range events {
		at := fmt.Sprintf("2026-12-01T10:00:%02dZ", i)
		o := recorder.Options{Now: func() string { return at }}
		var v *Verdict
		p := e.gate.Wire(e.payload, &o, &v)
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
	rmFail := call("toolu_2", "PostToolUseFailure", "Bash", `{"command":"rm -rf build"}`)
	env := call("toolu_3", "PreToolUse", "Read", `{"file_path":"/work/.env"}`)
	late := call("toolu_4", "PreToolUse", "Bash", `{"command":"echo later"}`)
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
		"fail_DENIED_CALL_RAN_post.json":       build(t, []event{{ls, good}, {lsPost, nil}, {rm, good}, {rmPost, nil}}),
		"fail_DENIED_CALL_RAN_failure.json":    build(t, []event{{rm, good}, {rmFail, nil}}),
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
