package cassettecheck_test

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/runback"
)

var update = flag.Bool("update", false, "rewrite testdata/runback from the recorder")

// fixtureDir is the repository's own cassette fixtures, made by the
// recorder (TestFixtures -update); no data from ../shared.
const fixtureDir = "../../testdata/runback"

// fixtureKey and otherKey are test-only keys derived from fixed strings.
func testKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("logbook runback fixture key: " + name + " (test only)"))
	return ed25519.NewKeyFromSeed(seed[:])
}

var hmacKey = []byte("logbook-runback-fixture-hmac-key")

// fixtureOpts names the verifier options a fixture is checked with.
type fixtureOpts struct {
	Pinned  []string `json:"pinned,omitempty"`  // key names: fixture, other
	Revoked []string `json:"revoked,omitempty"` //
	HMAC    bool     `json:"hmac,omitempty"`    // pass hmac.key
	Strict  bool     `json:"strict,omitempty"`
}

// fixtureWant is what a fixture must give; the generator writes it from
// the fixture's spec, not from running the verifier.
type fixtureWant struct {
	Opts      fixtureOpts `json:"options"`
	Verdict   string      `json:"verdict"`
	Exit      int         `json:"exit"`
	Signature string      `json:"signature,omitempty"`
	Failed    []string    `json:"failed_checks,omitempty"`
	Findings  []string    `json:"findings,omitempty"`
	Error     string      `json:"error,omitempty"`
}

func clock() func() time.Time {
	t := time.Date(2026, 6, 14, 2, 47, 11, 0, time.UTC)
	return func() time.Time { t = t.Add(150 * time.Millisecond); return t }
}

func counter() func([]byte) {
	var n uint64
	return func(b []byte) {
		for i := range b {
			n++
			s := sha256.Sum256([]byte(fmt.Sprint(n)))
			b[i] = s[0]
		}
	}
}

// scripted records a small loan agent: a model call, a tool call (with a
// key projection), a clock read, a uuid, a fetch, a second model call.
func scripted(t testing.TB, end bool) *runback.Recorder {
	ctx := context.Background()
	rec := runback.NewRecorder(runback.Config{RunID: "run_fixture01", Name: "loan-agent", Clock: clock(), Rand: counter(),
		Projections: map[string]runback.KeyProjection{"check_credit": {Drop: []string{"request_id"}}}})
	must(t, rec.Start("Applicant 4471 asks for 12000."))
	_, err := rec.Model(ctx, runback.ModelCall{Provider: "fake", Model: "scripted-1", Request: map[string]any{"messages": []any{map[string]any{"role": "user", "content": "Applicant 4471 asks for 12000."}}, "temperature": 0}},
		func(context.Context) (any, error) {
			return map[string]any{"text": "Checking credit.", "tool_calls": []any{map[string]any{"name": "check_credit", "input": map[string]any{"applicant": 4471}}}}, nil
		})
	must(t, err)
	_, err = rec.Tool(ctx, runback.ToolCall{Name: "check_credit", CallID: "t1", Input: map[string]any{"applicant": 4471, "request_id": "req-1"}},
		func(context.Context) (any, error) { return map[string]any{"score": 684, "disputes_open": 1}, nil })
	must(t, err)
	rec.Now()
	rec.UUID()
	_, err = rec.Fetch(ctx, "GET", "https://rates.example/today", func(context.Context) (runback.FetchResult, error) {
		return runback.FetchResult{Status: 200, Body: []byte(`{"rate":4.5}`)}, nil
	})
	must(t, err)
	_, err = rec.Tool(ctx, runback.ToolCall{Name: "approve", CallID: "t2", Input: map[string]any{"amount": 12000}},
		func(context.Context) (any, error) {
			return nil, &runback.CallError{Name: "PolicyBlock", Message: "manual review required"}
		})
	if err == nil {
		t.Fatal("the failing tool call returned no error")
	}
	if end {
		must(t, rec.End(nil, &runback.CallError{Name: "PolicyBlock", Message: "approve blocked"}))
	}
	return rec
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree is a parsed cassette to mutate, then rechain and re-sign.
type tree struct{ v *js.Value }

func parseTree(t testing.TB, b []byte) tree {
	v, _, err := js.Parse(b)
	must(t, err)
	c := v.Clone()
	return tree{&c}
}

func (tr tree) manifest() *js.Value { return tr.v.Get("manifest") }
func (tr tree) events() *js.Value   { return tr.v.Get("events") }

// rechain recomputes every _hash, both digests and the counts.
func (tr tree) rechain(t testing.TB) {
	ev := tr.events().Items
	for i := range ev {
		ev[i].Delete("_hash")
	}
	hashes, digest := oracle.Chain(ev)
	cd, n, err := oracle.CassetteDigest(ev)
	must(t, err)
	for i := range ev {
		ev[i].Set("_hash", js.Str(hashes[i]))
	}
	m := tr.manifest()
	m.Set("content_digest", js.Str(digest))
	m.Set("event_count", js.Num(float64(len(ev))))
	r := m.Get("replay")
	r.Set("cassette_digest", js.Str(cd))
	r.Set("entry_count", js.Num(float64(n)))
}

func (tr tree) payload() []byte {
	m := tr.manifest()
	return []byte(m.Get("content_digest").Str + ":" + m.Get("replay").Get("cassette_digest").Str)
}

func pubPEM(pub any) string {
	der, _ := x509.MarshalPKIXPublicKey(pub)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func (tr tree) signEd(k ed25519.PrivateKey) {
	m := tr.manifest()
	m.Set("signed", js.Value{Kind: js.Bool, Bool: true})
	m.Set("signature", js.Obj(js.Member{Key: "alg", Value: js.Str("Ed25519")},
		js.Member{Key: "value", Value: js.Str(hex.EncodeToString(ed25519.Sign(k, tr.payload())))},
		js.Member{Key: "pubkey", Value: js.Str(pubPEM(k.Public()))}))
}

func (tr tree) sig() *js.Value { return tr.manifest().Get("signature") }

func (tr tree) bytes() []byte { return append(js.AppendJSON(nil, tr.v, "  "), '\n') }

// event returns the first event of a type.
func (tr tree) event(typ string) *js.Value {
	for i := range tr.events().Items {
		if tr.events().Items[i].Get("type").Str == typ {
			return &tr.events().Items[i]
		}
	}
	return nil
}

type fixture struct {
	name string
	data []byte
	want fixtureWant
}

var pinned = fixtureOpts{Pinned: []string{"fixture"}, HMAC: true}

func ok(verdict, sig string, findings ...string) fixtureWant {
	return fixtureWant{Opts: pinned, Verdict: verdict, Exit: cassettecheck.Exit(verdict), Signature: sig, Findings: findings}
}

func bad(sig string, failed []string, findings ...string) fixtureWant {
	return fixtureWant{Opts: pinned, Verdict: cassettecheck.Invalid, Exit: 1, Signature: sig, Failed: failed, Findings: findings}
}

// makeFixtures builds every fixture from the recorder.
func makeFixtures(t testing.TB) []fixture {
	fk, ok2 := testKey("fixture"), testKey("other")
	base := scripted(t, true)
	sealedEd, err := base.Seal(runback.Ed25519Signer(fk))
	must(t, err)
	sealedH, err := base.Seal(runback.HMACSigner(hmacKey))
	must(t, err)
	unsigned, err := base.Seal(nil)
	must(t, err)
	noEnd, err := scripted(t, false).Seal(runback.Ed25519Signer(fk))
	must(t, err)
	empty, err := runback.NewRecorder(runback.Config{RunID: "run_empty", Clock: clock()}).Seal(runback.Ed25519Signer(fk))
	must(t, err)

	var fs []fixture
	add := func(name string, data []byte, w fixtureWant) { fs = append(fs, fixture{name, data, w}) }
	edit := func(src []byte, f func(tr tree)) []byte {
		tr := parseTree(t, src)
		f(tr)
		return tr.bytes()
	}
	resign := func(f func(tr tree)) []byte {
		return edit(sealedEd, func(tr tree) { f(tr); tr.rechain(t); tr.signEd(fk) })
	}

	add("valid_ed25519", sealedEd, ok(cassettecheck.Valid, cassettecheck.SigValid))
	add("valid_hmac", sealedH, ok(cassettecheck.Valid, cassettecheck.SigValid))
	add("unverified_unsigned", unsigned, ok(cassettecheck.Unverified, cassettecheck.SigUnsigned))
	add("unverified_unpinned", sealedEd, fixtureWant{Verdict: cassettecheck.Unverified, Exit: 2, Signature: cassettecheck.SigValidUnpinned})
	add("unverified_hmac_no_key", sealedH, fixtureWant{Opts: fixtureOpts{Pinned: []string{"fixture"}}, Verdict: cassettecheck.Unverified, Exit: 2, Signature: cassettecheck.SigNoKey})
	add("valid_rotated_key", edit(sealedEd, func(tr tree) { tr.signEd(ok2) }),
		fixtureWant{Opts: fixtureOpts{Pinned: []string{"fixture", "other"}}, Verdict: cassettecheck.Valid, Exit: 0, Signature: cassettecheck.SigValid})
	add("invalid_event_edited", edit(sealedEd, func(tr tree) {
		tr.event("tool").Get("output").Set("score", js.Num(810))
	}), bad(cassettecheck.SigValid, []string{"chain", "digest", "cassette"}))
	add("invalid_summary_forged", edit(sealedEd, func(tr tree) { tr.v.Get("run").Set("status", js.Str("completed")) }),
		bad(cassettecheck.SigValid, []string{"consistent"}))
	add("invalid_manifest_run_id", edit(sealedEd, func(tr tree) { tr.manifest().Set("run_id", js.Str("run_other")) }),
		bad(cassettecheck.SigValid, []string{"consistent"}))
	add("invalid_cassette_digest", edit(sealedEd, func(tr tree) {
		// Re-chained and re-signed over a cassette digest left as it was.
		cd := tr.manifest().Get("replay").Get("cassette_digest").Str
		tr.event("llm").Get("response").Set("text", js.Str("Approve at once."))
		tr.rechain(t)
		tr.manifest().Get("replay").Set("cassette_digest", js.Str(cd))
		tr.signEd(fk)
	}), bad(cassettecheck.SigValid, []string{"cassette"}))
	add("invalid_signature", edit(sealedEd, func(tr tree) {
		v := tr.sig().Get("value")
		v.Str = strings.Repeat("0", 128)
	}), bad(cassettecheck.SigInvalid, []string{"signature"}))
	add("invalid_hmac_wrong", edit(sealedH, func(tr tree) { tr.sig().Get("value").Str = strings.Repeat("a", 64) }),
		bad(cassettecheck.SigInvalid, []string{"signature"}))
	add("unverified_resigned_other_key", edit(sealedEd, func(tr tree) {
		tr.event("tool").Get("output").Set("score", js.Num(810))
		tr.rechain(t)
		tr.signEd(ok2)
	}), ok(cassettecheck.Unverified, cassettecheck.SigValidUnpinned))
	add("valid_key_projection", resign(func(tr tree) {
		// A different request_id keys the same: the projection drops it.
		tr.event("tool").Get("input").Set("request_id", js.Str("req-2"))
	}), ok(cassettecheck.Valid, cassettecheck.SigValid))
	add("strict_refuses_finding", noEnd, fixtureWant{Opts: fixtureOpts{Pinned: []string{"fixture"}, Strict: true}, Verdict: cassettecheck.Invalid, Exit: 1, Signature: cassettecheck.SigValid, Findings: []string{cassettecheck.NoRunEnd}})

	// One fixture per finding code.
	add("finding_EMPTY_RECORD", empty, ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.EmptyRecord))
	add("finding_NO_RUN_END", noEnd, ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.NoRunEnd))
	add("finding_SEQ_OUT_OF_ORDER", resign(func(tr tree) {
		ev := tr.events().Items
		ev[1], ev[2] = ev[2], ev[1]
	}), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.SeqOutOfOrder))
	add("finding_SEQ_DUPLICATE", resign(func(tr tree) { tr.events().Items[3].Set("seq", js.Num(2)) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.SeqDuplicate))
	add("finding_SEQ_NOT_NUMBER", resign(func(tr tree) { tr.events().Items[3].Set("seq", js.Str("3")) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.SeqNotNumber))
	add("finding_DUPLICATE_KEY", bytes.Replace(sealedEd, []byte(`"status": "error",`), []byte(`"status": "completed", "status": "error",`), 1),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.DuplicateKey))
	add("finding_LONE_SURROGATE", resign(func(tr tree) {
		tr.event("tool").Get("output").Set("note", js.Str("half a pair: \xed\xa0\xbd"))
	}), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.LoneSurrogate))
	add("finding_INVALID_UTF8", bytes.Replace(resign(func(tr tree) {
		tr.event("tool").Get("output").Set("note", js.Str("bad byte: \ufffd"))
	}), []byte("bad byte: \ufffd"), []byte("bad byte: \xff"), 1), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.InvalidUTF8))
	add("finding_NUMBER_OVERFLOW", bytes.Replace(resign(func(tr tree) {
		tr.event("tool").Get("output").Set("huge", js.Num(math.Inf(1)))
	}), []byte(`"huge": null`), []byte(`"huge": 1E400`), 1), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.NumberOverflow))
	add("finding_NUMBER_PRECISION", bytes.Replace(resign(func(tr tree) {
		tr.event("tool").Get("output").Set("account", js.Num(9007199254740992))
	}), []byte(`"account": 9007199254740992`), []byte(`"account": 9007199254740993`), 1), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.NumberPrecision))
	add("finding_PROTO_KEY", resign(func(tr tree) {
		tr.event("tool").Members = append(tr.event("tool").Members, js.Member{Key: "__proto__", Value: js.Obj(js.Member{Key: "admin", Value: js.Value{Kind: js.Bool, Bool: true}})})
	}), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.ProtoKey))
	add("finding_HEX_TRAILING_GARBAGE", edit(sealedEd, func(tr tree) { tr.sig().Get("value").Str += "zz" }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.HexTrailingGarbage))
	add("finding_HEX_UPPERCASE", edit(sealedEd, func(tr tree) { v := tr.sig().Get("value"); v.Str = strings.ToUpper(v.Str) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.HexUppercase))
	add("finding_SIGNATURE_NOT_STRING", edit(sealedH, func(tr tree) { v := tr.sig().Get("value"); *v = js.Arr(*v) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.SignatureNotString))
	add("finding_SMALL_ORDER_KEY", edit(sealedEd, func(tr tree) {
		identity := append([]byte{1}, make([]byte, 31)...)
		tr.sig().Set("pubkey", js.Str(pubPEM(ed25519.PublicKey(identity))))
		tr.sig().Set("value", js.Str("01"+strings.Repeat("00", 63)))
	}), ok(cassettecheck.Unverified, cassettecheck.SigValidUnpinned, cassettecheck.SmallOrderKey))
	add("finding_NON_ED25519_KEY", edit(sealedEd, func(tr tree) {
		ec, err := ecdh.P256().NewPrivateKey(bytes.Repeat([]byte{7}, 32))
		must(t, err)
		tr.sig().Set("pubkey", js.Str(pubPEM(ec.PublicKey())))
	}), bad(cassettecheck.SigInvalid, []string{"signature"}, cassettecheck.NonEd25519Key))
	add("finding_PRIVATE_KEY_EMBEDDED", edit(sealedEd, func(tr tree) {
		der, _ := x509.MarshalPKCS8PrivateKey(fk)
		tr.sig().Set("pubkey", js.Str(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))))
	}), ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.PrivateKeyEmbedded))
	add("finding_UNKNOWN_SCHEMA", edit(sealedEd, func(tr tree) { tr.v.Set("$schema", js.Str("runback.audit/v1")) }),
		bad(cassettecheck.SigValid, []string{"schema"}, cassettecheck.UnknownSchema))
	add("finding_UNKNOWN_SIGNATURE_ALG", edit(sealedH, func(tr tree) { tr.sig().Set("alg", js.Str("hmac-sha256")) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.UnknownSigAlg))
	add("finding_REVOKED_KEY", sealedEd, fixtureWant{Opts: fixtureOpts{Pinned: []string{"fixture"}, Revoked: []string{"fixture"}},
		Verdict: cassettecheck.Unverified, Exit: 2, Signature: cassettecheck.SigRevoked, Findings: []string{cassettecheck.RevokedKey}})
	add("finding_EVENT_COUNT_MISMATCH", edit(sealedEd, func(tr tree) { tr.manifest().Set("event_count", js.Num(99)) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.EventCountMismatch))
	add("finding_ENTRY_COUNT_MISMATCH", edit(sealedEd, func(tr tree) { tr.manifest().Get("replay").Set("entry_count", js.Num(1)) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.EntryCountMismatch))
	add("finding_SIGNED_FLAG_MISMATCH", edit(sealedEd, func(tr tree) { tr.manifest().Set("signed", js.Value{Kind: js.Bool}) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.SignedFlagMismatch))
	add("finding_RUN_ID_MIXED", resign(func(tr tree) { tr.event("env").Set("run_id", js.Str("run_elsewhere")) }),
		ok(cassettecheck.Valid, cassettecheck.SigValid, cassettecheck.RunIDMixed))

	// Cassettes runback's verifier throws on (its CLI exits 1).
	errw := func(code string) fixtureWant {
		return fixtureWant{Opts: pinned, Verdict: cassettecheck.Invalid, Exit: 1, Error: code}
	}
	add("error_JSON_SYNTAX", sealedEd[:len(sealedEd)/2], errw("JSON_SYNTAX"))
	add("error_NOT_A_CASSETTE", []byte(`{"$schema": "runback.audit/v2", "events": []}`), errw("NOT_A_CASSETTE"))
	add("error_TYPE_ERROR", edit(sealedEd, func(tr tree) {
		tr.event("llm").Get("model").Set("model_id", js.Obj(js.Member{Key: "toString", Value: js.Num(1)}))
	}),
		errw("TYPE_ERROR"))
	add("error_DEPTH_LIMIT", []byte(`{"$schema": "runback.audit/v2", "manifest": {}, "events": [`+strings.Repeat("[", js.MaxDepth)+strings.Repeat("]", js.MaxDepth)+`]}`),
		errw("DEPTH_LIMIT"))
	add("error_VALUE_LIMIT", []byte(`{"$schema": "runback.audit/v2", "manifest": {}, "events": [[`+strings.Repeat("1,", 5000)+`1]]}`),
		errw("VALUE_LIMIT"))
	return fs
}

// TestFixtures checks every fixture in testdata/runback against the
// verdict, signature state, failed checks and findings its spec names.
// With -update it first rewrites them from the recorder.
func TestFixtures(t *testing.T) {
	if *update {
		writeFixtures(t)
	}
	data, err := os.ReadFile(filepath.Join(fixtureDir, "EXPECTED.json"))
	must(t, err)
	var want map[string]fixtureWant
	must(t, json.Unmarshal(data, &want))
	seen := map[string]bool{}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fixtureDir, name+".json"))
			must(t, err)
			res, err := cassettecheck.Verify(data, optionsFor(t, w.Opts))
			if w.Error != "" {
				e, ok := err.(*cassettecheck.Error)
				if !ok || e.Code != w.Error {
					t.Fatalf("error %v, want %s", err, w.Error)
				}
				return
			}
			must(t, err)
			if res.Verdict != w.Verdict || cassettecheck.Exit(res.Verdict) != w.Exit || res.Checks.Signature != w.Signature {
				t.Errorf("verdict %s (exit %d) signature %s, want %s (exit %d) %s", res.Verdict, cassettecheck.Exit(res.Verdict), res.Checks.Signature, w.Verdict, w.Exit, w.Signature)
			}
			if !slices.Equal(res.FailedChecks, orEmpty(w.Failed)) {
				t.Errorf("failed checks %v, want %v", res.FailedChecks, w.Failed)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, f.Code)
				seen[f.Code] = true
			}
			if !slices.Equal(got, w.Findings) {
				t.Errorf("findings %v, want %v", got, w.Findings)
			}
		})
	}
	// Every finding code is reachable by a fixture named after it.
	for _, code := range allFindings {
		if _, ok := want["finding_"+code]; !ok {
			t.Errorf("no fixture finding_%s", code)
		}
	}
}

var allFindings = []string{cassettecheck.EmptyRecord, cassettecheck.NoRunEnd, cassettecheck.SeqOutOfOrder, cassettecheck.SeqDuplicate, cassettecheck.SeqNotNumber, cassettecheck.DuplicateKey,
	cassettecheck.LoneSurrogate, cassettecheck.InvalidUTF8, cassettecheck.NumberOverflow, cassettecheck.NumberPrecision, cassettecheck.ProtoKey, cassettecheck.HexTrailingGarbage, cassettecheck.HexUppercase,
	cassettecheck.SignatureNotString, cassettecheck.SmallOrderKey, cassettecheck.NonEd25519Key, cassettecheck.PrivateKeyEmbedded, cassettecheck.UnknownSchema, cassettecheck.UnknownSigAlg,
	cassettecheck.RevokedKey, cassettecheck.EventCountMismatch, cassettecheck.EntryCountMismatch, cassettecheck.SignedFlagMismatch, cassettecheck.RunIDMixed}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func optionsFor(t testing.TB, o fixtureOpts) cassettecheck.Options {
	var opt cassettecheck.Options
	load := func(names []string) []ed25519.PublicKey {
		var out []ed25519.PublicKey
		for _, n := range names {
			text, err := os.ReadFile(filepath.Join(fixtureDir, n+".pub"))
			must(t, err)
			pub, err := keys.ParsePublicKeyPEM(text)
			must(t, err)
			out = append(out, pub)
		}
		return out
	}
	if o.Pinned != nil {
		opt.Pinned = load(o.Pinned)
	} else {
		opt.Pinned = []ed25519.PublicKey{} // pin nothing (not runback's production key)
	}
	opt.Revoked = load(o.Revoked)
	if o.HMAC {
		k, err := os.ReadFile(filepath.Join(fixtureDir, "hmac.key"))
		must(t, err)
		opt.HMACKeys = [][]byte{cassettecheck.TrimKey(k)}
	}
	opt.Strict = o.Strict
	return opt
}

func writeFixtures(t *testing.T) {
	must(t, os.MkdirAll(fixtureDir, 0o755))
	old, _ := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	for _, f := range old {
		must(t, os.Remove(f))
	}
	want := map[string]fixtureWant{}
	for _, f := range makeFixtures(t) {
		must(t, os.WriteFile(filepath.Join(fixtureDir, f.name+".json"), f.data, 0o644))
		want[f.name] = f.want
	}
	b, err := json.MarshalIndent(want, "", "  ")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(fixtureDir, "EXPECTED.json"), append(b, '\n'), 0o644))
	for _, n := range []string{"fixture", "other"} {
		priv, pub, err := keys.MarshalPair(testKey(n), testKey(n).Public().(ed25519.PublicKey))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(fixtureDir, n+".key"), priv, 0o600))
		must(t, os.WriteFile(filepath.Join(fixtureDir, n+".pub"), pub, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(fixtureDir, "hmac.key"), append(hmacKey, '\n'), 0o600))
}

// TestFixturesUpToDate: the files on disk are what the recorder makes
// today (run with -update after changing it).
func TestFixturesUpToDate(t *testing.T) {
	for _, f := range makeFixtures(t) {
		data, err := os.ReadFile(filepath.Join(fixtureDir, f.name+".json"))
		must(t, err)
		if !bytes.Equal(data, f.data) {
			t.Errorf("%s.json differs from what the recorder makes: go test ./internal/cassettecheck -run TestFixtures -update", f.name)
		}
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
