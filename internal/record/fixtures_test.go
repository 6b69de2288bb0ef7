package record_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
	"github.com/logbook-project/logbook/internal/tombstone"
	"github.com/logbook-project/logbook/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite testdata/records from the generator")

const (
	testdataDir = "../../testdata"
	fixtureDir  = testdataDir + "/records"
)

// fixtureKey derives a test-only key from a label, so the generator is
// reproducible byte for byte.
func fixtureKey(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("logbook test fixture key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

func step(at, kind, summary string, data strictjson.Value, in, out []string) chain.Step {
	return chain.Step{At: at, Kind: kind, Summary: summary, Data: data, Inputs: in, Outputs: out}
}

func m(k string, v strictjson.Value) strictjson.Member { return strictjson.Member{Key: k, Value: v} }

func sum(s string) string { x := sha256.Sum256([]byte(s)); return hex.EncodeToString(x[:]) }

// baseSteps is a small realistic session with awkward text in it.
func baseSteps() []chain.Step {
	return []chain.Step{
		step("2026-03-01T10:00:00Z", "note", "SessionStart: startup claude-opus-4-7",
			strictjson.Obj(m("event", strictjson.Str("SessionStart")), m("model", strictjson.Str("claude-opus-4-7"))), nil, nil),
		step("2026-03-01T10:00:01.5Z", "note", "UserPromptSubmit: prompt (42 bytes)",
			strictjson.Obj(m("event", strictjson.Str("UserPromptSubmit"))), []string{sum("fix the tests")}, nil),
		step("2026-03-01T10:00:02.123456789Z", "exec", "PreToolUse Bash: go test ./...",
			strictjson.Obj(m("command", strictjson.Str("go test ./...")), m("event", strictjson.Str("PreToolUse")),
				m("tool", strictjson.Str("Bash")), m("toolUseId", strictjson.Str("toolu_01"))), []string{sum("{}")}, nil),
		step("2026-03-01T10:00:09Z", "exec", "PostToolUse Bash: go test ./...",
			strictjson.Obj(m("durationMs", strictjson.Int(6877)), m("event", strictjson.Str("PostToolUse")),
				m("tool", strictjson.Str("Bash")), m("toolUseId", strictjson.Str("toolu_01"))), []string{sum("{}")}, []string{sum("ok")}),
		step("2026-03-01T10:00:10Z", "claim", "Stop: final message (120 bytes)",
			strictjson.Obj(m("event", strictjson.Str("Stop")), m("n", strictjson.Int(-9007199254740991))), nil, []string{sum("done")}),
	}
}

func unicodeSteps() []chain.Step {
	return []chain.Step{
		step("2024-02-29T23:59:59.999Z", "edit", "édition \u2028 line sep \u2029 <>& \x7f \x01 😀",
			strictjson.Obj(m("\ufb33", strictjson.Int(1)), m("😀", strictjson.Int(2)), m("a", strictjson.Arr(strictjson.Bool(true), strictjson.NullValue())),
				m("\r", strictjson.Str("tab\there"))), nil, nil),
	}
}

// linkJSON links steps into the canonical steps array of a record.
func linkJSON(steps []chain.Step) ([]byte, int, string) {
	b := []byte{'['}
	prev := ""
	for i, s := range steps {
		line, h, err := chain.Link(s, int64(i), prev)
		if err != nil {
			panic(err)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, line...)
		prev = h
	}
	return append(b, ']'), len(steps), prev
}

func assemble(steps []chain.Step, priv ed25519.PrivateKey) []byte {
	sess := record.Session{ID: "fixture-session", Agent: "claude-code (claude-opus-4-7)", Goal: "make the tests pass", Cwd: "/home/dev/project",
		StartedAt: "2026-03-01T10:00:00Z", EndedAt: "2026-03-01T10:00:10Z"}
	if len(steps) > 0 {
		sess.StartedAt, sess.EndedAt = steps[0].At, steps[len(steps)-1].At
	}
	js, n, tip := linkJSON(steps)
	out, err := record.Assemble(sess, js, n, tip, priv)
	if err != nil {
		panic(err)
	}
	return out
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// smallOrderForgery is a record "signed" under the identity point: R is
// the identity and S = 0, which Go's ed25519.Verify accepts for any message.
func smallOrderForgery(good []byte) []byte {
	weak := "01" + strings.Repeat("00", 31)
	sig := "01" + strings.Repeat("00", 63)
	return must(tamper.Apply(good, tamper.SetSession("goal", "forged goal"), func(rec *strictjson.Value) error {
		s := rec.Get("signature")
		for i := range s.Members {
			switch s.Members[i].Key {
			case "publicKey":
				s.Members[i].Value = strictjson.Str(record.SPKIPrefix + weak)
			case "value":
				s.Members[i].Value = strictjson.Str(sig)
			}
		}
		return nil
	}))
}

// withKey replaces signature.publicKey by the given 32 key bytes.
func withKey(good []byte, key []byte) []byte {
	return must(tamper.Apply(good, func(rec *strictjson.Value) error {
		s := rec.Get("signature")
		for i := range s.Members {
			if s.Members[i].Key == "publicKey" {
				s.Members[i].Value = strictjson.Str(record.SPKIPrefix + hex.EncodeToString(key))
			}
		}
		return nil
	}))
}

// nonCanonicalKey finds y0 < 19 that is a point of large order and encodes
// it as y0 + p, which decoders that skip the range check accept.
func nonCanonicalKey() []byte {
	p := [32]byte{0xed}
	for i := 1; i < 31; i++ {
		p[i] = 0xff
	}
	p[31] = 0x7f
	for y0 := byte(2); y0 < 19; y0++ {
		enc := p
		enc[0] += y0
		pt, err := new(edwards25519.Point).SetBytes(enc[:])
		if err != nil {
			continue
		}
		if new(edwards25519.Point).MultByCofactor(pt).Equal(edwards25519.NewIdentityPoint()) == 0 {
			return enc[:]
		}
	}
	panic("no non-canonical key found")
}

// offCurveKey finds a y for which no x exists.
func offCurveKey() []byte {
	for y := byte(2); ; y++ {
		enc := make([]byte, 32)
		enc[0] = y
		if _, err := new(edwards25519.Point).SetBytes(enc); err != nil {
			return enc
		}
	}
}

func textEdit(b []byte, old, new string) []byte {
	if !bytes.Contains(b, []byte(old)) {
		panic("fixture text edit: " + old + " not found")
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

func deep(n int) strictjson.Value {
	v := strictjson.Int(1)
	for i := 0; i < n; i++ {
		v = strictjson.Arr(v)
	}
	return v
}

func pretty(b []byte) []byte {
	var out bytes.Buffer
	depth := 0
	inStr, esc := false, false
	for _, c := range b {
		if inStr {
			out.WriteByte(c)
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			out.WriteByte(c)
		case '{', '[':
			depth++
			out.WriteByte(c)
			out.WriteString("\n" + strings.Repeat("  ", depth))
		case '}', ']':
			depth--
			out.WriteString("\n" + strings.Repeat("  ", depth))
			out.WriteByte(c)
		case ',':
			out.WriteString(",\n" + strings.Repeat("  ", depth))
		case ':':
			out.WriteString(": ")
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// fixtures returns every record fixture by file name. The name says the
// expected verdict with testdata/keys/fixture.pub pinned: good_* is OK,
// fail_CODE_* is refused with CODE.
func fixtures() map[string][]byte {
	pk, other := fixtureKey("fixture"), fixtureKey("other")
	good := assemble(baseSteps(), pk)
	f := map[string][]byte{
		"good_basic.json":       good,
		"good_no_steps.json":    assemble(nil, pk),
		"good_unicode.json":     assemble(unicodeSteps(), pk),
		"good_pretty.json":      pretty(good),
		"good_minus_zero.json":  textEdit(good, `"seq":0,`, `"seq":-0,`),
		"good_escaped_key.json": textEdit(good, `"version":`, `"vers\u0069on":`),
		// The goal holds the text the verifier splices the steps at.
		"good_goal_placeholder.json": must(tamper.Apply(good, tamper.SetSession("goal", `"steps":"logbook:steps-placeholder"`), tamper.Resign(pk))),

		// Without --tsa-roots or identity roots the contents are not judged,
		// only their DER form; records/policy/ has the fixtures that judge them.
		"good_rfc3161_present.json":           must(tamper.Apply(good, withRFC3161("3003020101"))),
		"good_signer_identity.json":           must(tamper.Apply(good, withIdentity("3003020101"), tamper.Resign(pk))),
		"good_session_recorder.json":          assembleWith(pk, recorderOfFixtures, record.Extras{}),
		"fail_SHAPE_rfc3161_not_der.json":     must(tamper.Apply(good, withRFC3161("deadbeef"))),
		"fail_SHAPE_certificate_not_der.json": must(tamper.Apply(good, withIdentity("3003020101ff"), tamper.Resign(pk))),

		// Over strictjson.ShallowOver: data canonicalized from its text.
		"good_wide_data.json":                   assemble(wideSteps(40000, "7"), pk),
		"fail_SHAPE_float_in_wide_data.json":    textEdit(assemble(wideSteps(40000, "7"), pk), `7,7,7]`, `7,7,7.5]`),
		"fail_CHAIN_BROKEN_wide_data_edit.json": textEdit(assemble(wideSteps(40000, "7"), pk), `[7,7,`, `[8,7,`),

		"fail_NOT_JSON_dup_key_in_step.json":    textEdit(good, `"kind":"note",`, `"kind":"note","kind":"exec",`),
		"fail_NOT_JSON_dup_key_escaped.json":    textEdit(good, `"stepCount":5,`, `"stepCount":5,"step\u0043ount":5,`),
		"fail_NOT_JSON_lone_surrogate.json":     textEdit(good, `"summary":"Stop:`, `"summary":"\ud800Stop:`),
		"fail_NOT_JSON_lone_low_surrogate.json": textEdit(good, `"summary":"Stop:`, `"summary":"\udc00Stop:`),
		"fail_NOT_JSON_trailing_data.json":      append(append([]byte{}, good...), `{}`...),
		"fail_NOT_JSON_bom.json":                append([]byte("\xEF\xBB\xBF"), good...),
		"fail_NOT_JSON_invalid_utf8.json":       textEdit(good, `"summary":"Stop:`, "\"summary\":\"\xff\xfeStop:"),
		"fail_NOT_JSON_depth_65.json":           must(tamper.Apply(good, tamper.SetTop("extra", deep(64)))),
		"fail_NOT_JSON_truncated_file.json":     good[:len(good)/2],

		"fail_SHAPE_float.json":             textEdit(good, `"durationMs":6877`, `"durationMs":6877.5`),
		"fail_SHAPE_int_above_2_53.json":    textEdit(good, `"durationMs":6877`, `"durationMs":9007199254740992`),
		"fail_SHAPE_exponent.json":          textEdit(good, `"durationMs":6877`, `"durationMs":6877e0`),
		"fail_SHAPE_uppercase_hex.json":     textEdit(good, `"chainTip":"`+tipOf(good)[:4], `"chainTip":"`+strings.ToUpper(tipOf(good)[:4])),
		"fail_SHAPE_feb_30.json":            textEdit(good, `"at":"2026-03-01T10:00:09Z"`, `"at":"2026-02-30T10:00:09Z"`),
		"fail_SHAPE_leap_second.json":       textEdit(good, `"at":"2026-03-01T10:00:09Z"`, `"at":"2026-03-01T10:00:60Z"`),
		"fail_SHAPE_unknown_top_key.json":   must(tamper.Apply(good, tamper.SetTop("comment", strictjson.Str("hi")))),
		"fail_SHAPE_missing_signature.json": textEdit(good, `"signature":`, `"signatura":`),
		"fail_SHAPE_unknown_kind.json":      textEdit(good, `"kind":"claim"`, `"kind":"decision"`),
		"fail_SHAPE_wrong_version.json":     textEdit(good, `"agent-work/record@0"`, `"agent-work/record@1"`),
		"fail_SHAPE_empty_session_id.json":  textEdit(good, `"id":"fixture-session"`, `"id":""`),

		"fail_STEP_OUT_OF_ORDER_swap.json": must(tamper.Apply(good, tamper.Swap(1, 2))),
		"fail_STEP_OUT_OF_ORDER_drop.json": must(tamper.Apply(good, tamper.Drop(2))),

		"fail_CHAIN_BROKEN_edited_step.json":             must(tamper.Apply(good, tamper.EditSummary(2, "PreToolUse Bash: true"))),
		"fail_CHAIN_BROKEN_drop_renumber.json":           must(tamper.Apply(good, tamper.Drop(1), tamper.Renumber)),
		"fail_CHAIN_BROKEN_swap_renumber.json":           must(tamper.Apply(good, tamper.Swap(3, 4), tamper.Renumber)),
		"fail_CHAIN_BROKEN_first_prev_set.json":          must(tamper.Apply(good, tamper.Relink, tamper.Swap(0, 1), tamper.Renumber)),
		"fail_STEP_COUNT_MISMATCH_cut_tail.json":         must(tamper.Apply(good, tamper.CutTail(1))),
		"fail_STEP_COUNT_MISMATCH_one_more.json":         textEdit(good, `"stepCount":5`, `"stepCount":6`),
		"fail_TIP_MISMATCH_cut_tail_count.json":          must(tamper.Apply(good, tamper.CutTail(2), countOnly)),
		"fail_TIP_MISMATCH_other_tip.json":               textEdit(good, `"chainTip":"`+tipOf(good), `"chainTip":"`+sum("x")),
		"fail_SIGNATURE_INVALID_goal.json":               must(tamper.Apply(good, tamper.SetSession("goal", "something else"))),
		"fail_SIGNATURE_INVALID_relinked.json":           must(tamper.Apply(good, tamper.EditSummary(2, "PreToolUse Bash: true"), tamper.Relink, tamper.FixCountAndTip)),
		"fail_SIGNATURE_INVALID_flipped_sig.json":        flipSig(good),
		"fail_SIGNATURE_INVALID_weak_key_forgery.json":   smallOrderForgery(good),
		"fail_SIGNATURE_INVALID_non_canonical_key.json":  withKey(good, nonCanonicalKey()),
		"fail_SIGNATURE_INVALID_key_not_on_curve.json":   withKey(good, offCurveKey()),
		"fail_SIGNATURE_INVALID_other_public_key.json":   withKey(good, other.Public().(ed25519.PublicKey)),
		"fail_SIGNER_NOT_TRUSTED_resigned.json":          must(tamper.Apply(good, tamper.SetSession("goal", "rewritten"), tamper.Resign(other))),
		"fail_SIGNER_NOT_TRUSTED_other_signer.json":      assemble(baseSteps(), other),
		"fail_SIGNER_NOT_TRUSTED_resigned_relinked.json": must(tamper.Apply(good, tamper.Drop(1), tamper.Renumber, tamper.Relink, tamper.FixCountAndTip, tamper.Resign(other))),

		// What a server leaves of a record its retention policy deleted.
		"fail_TOMBSTONED_retention.json": tombstoneOf(good, pk),
	}
	return f
}

// tombstoneOf is the signed tombstone that stands for rec once deleted.
func tombstoneOf(rec []byte, key ed25519.PrivateKey) []byte {
	return must(tombstone.Sign(tombstone.Tombstone{Session: "fixture-session", Tenant: "acme", Developer: "dev@example.com",
		RecordSHA256: sum(string(rec)), ChainTip: tipOf(rec), StepCount: 5, StartedAt: "2026-03-01T10:00:00Z", EndedAt: "2026-03-01T10:00:09Z",
		DeletedAt: "2027-04-05T00:00:00Z", DeletedBy: "retention policy (admin@example.com)", Reason: "kept 400 days"}, key))
}

func withRFC3161(hexDER string) tamper.Edit {
	return func(rec *strictjson.Value) error {
		sig := rec.Get("signature")
		sig.Members = append(sig.Members, strictjson.Member{Key: "rfc3161", Value: strictjson.Str(hexDER)})
		return nil
	}
}

func withIdentity(hexDER string) tamper.Edit {
	return tamper.SetTop("signerIdentity", strictjson.Obj(strictjson.Member{Key: "certificates", Value: strictjson.StrArr([]string{hexDER})}))
}

// wideSteps is one step whose data holds n integers in nested arrays and
// objects, more than 64 KiB of text.
func wideSteps(n int, lit string) []chain.Step {
	items := make([]strictjson.Value, n)
	for i := range items {
		items[i] = strictjson.Value{Kind: strictjson.Number, Str: lit}
	}
	data := strictjson.Obj(
		m("z", strictjson.Obj(m("b", strictjson.Arr(items...)), m("a", strictjson.Str("\u2028é")))),
		m("a", strictjson.Arr(strictjson.Obj(m("y", strictjson.Int(-1)), m("x", strictjson.NullValue())))),
	)
	return []chain.Step{step("2026-03-01T10:00:00Z", "tool_call", "wide", data, nil, nil)}
}

func countOnly(rec *strictjson.Value) error {
	n := len(rec.Get("steps").Items)
	return tamper.SetTop("stepCount", strictjson.Int(int64(n)))(rec)
}

func tipOf(rec []byte) string {
	v, err := strictjson.Parse(rec, strictjson.Options{})
	if err != nil {
		panic(err)
	}
	s, _ := v.GetString("chainTip")
	return s
}

func flipSig(good []byte) []byte {
	v, _ := strictjson.Parse(good, strictjson.Options{})
	sig, _ := v.Get("signature").GetString("value")
	flipped := []byte(sig)
	if flipped[10] == '0' {
		flipped[10] = '1'
	} else {
		flipped[10] = '0'
	}
	return textEdit(good, sig, string(flipped))
}

// keyFiles are the test-only key pairs, by path relative to testdata/:
// the signer of the fixtures, another signer, and two attestors.
func keyFiles() map[string][]byte {
	out := map[string][]byte{}
	for _, label := range []string{"fixture", "other", "witness", "builder"} {
		priv := fixtureKey(label)
		privPEM, pubPEM, err := keys.MarshalPair(priv, priv.Public().(ed25519.PublicKey))
		if err != nil {
			panic(err)
		}
		out["keys/"+label+".key"], out["keys/"+label+".key.pub"] = privPEM, pubPEM
	}
	return out
}

// generated is every file the generator owns, by path relative to
// testdata/.
func generated() map[string][]byte {
	out := keyFiles()
	for name, b := range fixtures() {
		out["records/"+name] = b
	}
	for path, b := range policyFixtures() {
		out[path] = b
	}
	for path, b := range checkpointFixtures() {
		out[path] = b
	}
	for path, b := range logFixtures() {
		out[path] = b
	}
	return out
}

// fixtureDirs hold record fixtures; a fixture's verify options, if any,
// are in DIR/options/ under the same name.
var fixtureDirs = []string{"records", policyDir, checkpointDir, logDir}

// TestFixtures checks every committed fixture against the code its name
// gives, verified with its options (by default, testdata/keys/fixture.key.pub
// pinned), and checks that the generator still produces exactly the
// committed files (run with -update to rewrite them).
func TestFixtures(t *testing.T) {
	gen := generated()
	if *update {
		for _, pattern := range []string{"records/*.json", policyDir + "/*.json", policyDir + "/*/*.json", "pki/*",
			checkpointDir + "/*.json", checkpointDir + "/*/*", logDir + "/*.json", logDir + "/*/*"} {
			old, _ := filepath.Glob(filepath.Join(testdataDir, pattern))
			for _, f := range old {
				os.Remove(f)
			}
		}
		for path, b := range gen {
			full := filepath.Join(testdataDir, path)
			mode := os.FileMode(0o644)
			if strings.HasSuffix(path, ".key") {
				mode = 0o600
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, b, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	for path, want := range gen {
		got, err := os.ReadFile(filepath.Join(testdataDir, path))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output (run go test ./internal/record -run TestFixtures -update): %v", path, err)
		}
	}
	perCode := map[string]int{}
	for _, dir := range fixtureDirs {
		files, _ := filepath.Glob(filepath.Join(testdataDir, dir, "*.json"))
		extra, _ := filepath.Glob(filepath.Join(testdataDir, dir, "*", "*.json"))
		for _, f := range append(files, extra...) {
			rel, _ := filepath.Rel(testdataDir, f)
			if _, ok := gen[filepath.ToSlash(rel)]; !ok {
				t.Errorf("%s is not made by the generator", rel)
			}
		}
		for _, f := range files {
			name := filepath.Base(f)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in := fixtureOptions(t, dir, name)
			in.Record = data
			want := wantCode(name)
			out := verdict.Run(in)
			res := out.Result
			if (dir == checkpointDir || dir == logDir) && res.OK {
				level := strings.Split(strings.TrimPrefix(name, "good_"), "_")[0]
				if out.Level != level {
					t.Errorf("%s/%s: level %q, want %q", dir, name, out.Level, level)
				}
			}
			if testing.Verbose() && dir == policyDir {
				t.Logf("%s: %s %s", name, res.Code, res.Detail)
			}
			if string(res.Code) != want || res.OK != (want == "") {
				t.Errorf("%s/%s: got %q (%s), want %q", dir, name, res.Code, res.Detail, want)
			}
			perCode[want]++
		}
	}
	var codes []string
	for c, n := range perCode {
		codes = append(codes, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(codes)
	for _, c := range append([]format.Code{""}, format.Codes...) {
		if perCode[string(c)] < 2 {
			t.Errorf("code %q: %d fixtures, want ≥ 2", c, perCode[string(c)])
		}
	}
	t.Logf("fixtures per code: %s", strings.Join(codes, " "))
}

// fixtureOptions reads DIR/options/NAME, the logbook-verify flags of a
// fixture as one strict JSON object: "pubkey" and "attestation",
// "attestorKey" (arrays of paths), "tsaRoots", "identityRoots",
// "trustedIdentities" (paths); paths are relative to testdata/. Without a
// file, or without "pubkey", the fixture key is pinned.
func fixtureOptions(t *testing.T, dir, name string) verdict.Inputs {
	t.Helper()
	var in verdict.Inputs
	var pol policy.Options
	text, err := os.ReadFile(filepath.Join(testdataDir, dir, "options", name))
	if os.IsNotExist(err) {
		text, err = []byte("{}"), nil
	}
	if err != nil {
		t.Fatal(err)
	}
	v, err := strictjson.Parse(text, strictjson.Options{MaxDepth: 3})
	if err != nil || v.Kind != strictjson.Object {
		t.Fatalf("%s options: %v", name, err)
	}
	read := func(path string) []byte {
		b, err := os.ReadFile(filepath.Join(testdataDir, path))
		if err != nil {
			t.Fatalf("%s options: %v", name, err)
		}
		return b
	}
	pub := func(path string) ed25519.PublicKey {
		k, err := keys.ParsePublicKeyPEM(read(path))
		if err != nil {
			t.Fatalf("%s options: %s: %v", name, path, err)
		}
		return k
	}
	var idRoots *x509.CertPool
	var trusted []string
	pinned := []string{"keys/fixture.key.pub"}
	for _, m := range v.Members {
		var list []string
		for _, it := range m.Value.Items {
			list = append(list, it.Str)
		}
		switch m.Key {
		case "pubkey":
			pinned = list
		case "revoked":
			for _, p := range list {
				in.Revoked = append(in.Revoked, pub(p))
			}
		case "attestation":
			for _, p := range list {
				pol.Attestations = append(pol.Attestations, read(p))
			}
		case "attestorKey":
			for _, p := range list {
				pol.AttestorKeys = append(pol.AttestorKeys, pub(p))
			}
		case "tsaRoots", "identityRoots":
			pool, err := identity.ParseRoots(read(m.Value.Str))
			if err != nil {
				t.Fatalf("%s options: %v", name, err)
			}
			if m.Key == "tsaRoots" {
				pol.TSARoots = pool
			} else {
				idRoots = pool
			}
		case "checkpoint":
			for _, p := range list {
				in.Checkpoints = append(in.Checkpoints, read(p))
			}
		case "checkpointKey":
			for _, p := range list {
				b := read(p)
				if strings.HasSuffix(p, ".vkey") {
					k, err := checkpoint.ParseVerifierKey(b)
					if err != nil {
						t.Fatalf("%s options: %v", name, err)
					}
					in.CheckpointKeys = append(in.CheckpointKeys, k)
				} else {
					in.CheckpointKeys = append(in.CheckpointKeys, checkpoint.Key{Pub: pub(p)})
				}
			}
		case "logPolicy":
			pol, err := logproof.ParsePolicy(read(m.Value.Str))
			if err != nil {
				t.Fatalf("%s options: %v", name, err)
			}
			in.Log.Policy = pol
		case "logProof":
			in.Log.Proof = read(m.Value.Str)
		case "requireManaged":
			in.RequireManaged = m.Value.Kind == strictjson.True
		case "requireAttested":
			in.RequireAttested = m.Value.Kind == strictjson.True
		case "trustedIdentities":
			if trusted, err = identity.ParseTrusted(read(m.Value.Str)); err != nil {
				t.Fatalf("%s options: %v", name, err)
			}
		default:
			t.Fatalf("%s options: unknown member %q", name, m.Key)
		}
	}
	for _, p := range pinned {
		in.Pinned = append(in.Pinned, pub(p))
	}
	if idRoots != nil || trusted != nil {
		pol.Identity = &identity.Policy{Roots: idRoots, Trusted: trusted}
	}
	in.Policy = pol
	return in
}

func wantCode(name string) string {
	if strings.HasPrefix(name, "good_") {
		return ""
	}
	rest := strings.TrimPrefix(name, "fail_")
	for _, c := range append(format.Codes[:len(format.Codes):len(format.Codes)], format.Tombstoned) {
		if strings.HasPrefix(rest, string(c)+"_") {
			return string(c)
		}
	}
	return "UNKNOWN(" + name + ")"
}

// TestForgeryNeedsWeakKeyCheck shows the weak-key fixture is a real
// forgery: Go's ed25519.Verify alone accepts it.
func TestForgeryNeedsWeakKeyCheck(t *testing.T) {
	weak := make([]byte, 32)
	weak[0] = 1
	sig := make([]byte, 64)
	sig[0] = 1
	if !ed25519.Verify(weak, []byte("any message at all"), sig) {
		t.Fatal("expected crypto/ed25519 to accept the small-order forgery; the fixture would test nothing")
	}
	if record.WeakKey(weak) == "" {
		t.Fatal("WeakKey does not refuse the identity point")
	}
}
