// Package cassettecheck verifies runback cassettes (runback.audit/v2, and the
// legacy name runback.cassette/v1) exactly as runback's own verifier does
// (packages/verify/index.js 2.1 at commit f1bb6f93): the same six checks,
// the same signature states and the same three verdicts, so that a result
// here can stand in for runback's. On top it names what runback accepts
// but a careful reader should know (Findings); Options.Strict turns those
// into refusals. The algorithm is pinned in docs/runback.md.
package cassettecheck

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"math"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
)

// Verdicts.
const (
	Valid      = "valid"
	Unverified = "unverified"
	Invalid    = "invalid"
)

// Signature states. Revoked is runback's sixth state: a sound signature by
// a key the caller revoked; runback's verdict for it is unverified.
const (
	SigUnsigned      = "unsigned"
	SigNoKey         = "no-key"
	SigInvalid       = "invalid"
	SigValidUnpinned = "valid-unpinned"
	SigValid         = "valid"
	SigRevoked       = "revoked"
)

// KnownSchemas are the $schema values runback checks.
var KnownSchemas = []string{"runback.audit/v2", "runback.cassette/v1"}

// ProductionKey is runback's published Ed25519 audit key (the one compiled
// into its verifier), pinned when Options.Pinned is nil, as runback's CLI
// pins it by default.
var ProductionKey = ed25519.PublicKey{
	0xac, 0x33, 0xe6, 0x47, 0xe1, 0xaf, 0xbb, 0x51, 0xda, 0xc2, 0x74, 0xaf, 0x33, 0xac, 0x63, 0x65,
	0xaa, 0x3b, 0x05, 0x53, 0xcf, 0x43, 0xcd, 0x10, 0xab, 0x7b, 0x1a, 0xd6, 0x10, 0x18, 0xbd, 0x35,
}

// Options are the verifier's inputs beyond the cassette.
type Options struct {
	// Pinned are the keys a signature must come from to be "valid"
	// (several: a rotated-out key still verifies what it signed). nil pins
	// ProductionKey; an empty non-nil slice pins nothing.
	Pinned []ed25519.PublicKey
	// Revoked keys make a sound signature "revoked".
	Revoked []ed25519.PublicKey
	// HMACKeys are shared secrets for HMAC-SHA256 cassettes; any may match.
	HMACKeys [][]byte
	// Strict turns every finding into a refusal (verdict invalid).
	Strict bool
}

// Checks is runback's checks object, in its key order.
type Checks struct {
	Schema       bool    `json:"schema"`
	Chain        bool    `json:"chain"`
	Digest       bool    `json:"digest"`
	Cassette     bool    `json:"cassette"`
	Consistent   bool    `json:"consistent"`
	Signature    string  `json:"signature"`
	SignatureAlg *string `json:"signature_alg"`
}

// Result is runback's result (valid, verdict, integrity, checks,
// consistency_failures, meta) plus logbook's: the findings, the verdict
// runback gives (equal to Verdict unless Strict refused), and where the
// chain first breaks.
type Result struct {
	Valid               bool     `json:"valid"`
	Verdict             string   `json:"verdict"`
	Integrity           bool     `json:"integrity"`
	Checks              Checks   `json:"checks"`
	ConsistencyFailures []string `json:"consistency_failures"`
	Meta                Meta     `json:"meta"`

	// SignatureNote says what the signature check established, in words;
	// for HMAC that it proves custody of a shared secret, not identity.
	SignatureNote  string    `json:"signature_note"`
	RunbackVerdict string    `json:"runback_verdict"`
	Strict         bool      `json:"strict"`
	Findings       []Finding `json:"findings"`
	// FailedChecks names the checks that failed, in runback's order.
	FailedChecks []string `json:"failed_checks"`
	// FirstBadEvent is the index of the first event whose _hash does not
	// recompute, or -1.
	FirstBadEvent int `json:"first_bad_event"`
	sig           sigNotes
}

// Meta is runback's meta object; values are canonical JSON.
type Meta struct {
	Schema      js.Raw `json:"schema"`
	RunID       js.Raw `json:"run_id,omitempty"`
	EventCount  int    `json:"event_count"`
	GeneratedAt js.Raw `json:"generated_at,omitempty"`
	SpecURL     js.Raw `json:"spec_url"`
}

// Error is a cassette runback's verifier throws on: not JSON, not a
// cassette, or a value its code cannot handle. Its CLI exits 1.
type Error struct {
	Code   string // JSON_SYNTAX, NOT_A_CASSETTE, DEPTH_LIMIT, VALUE_LIMIT, TYPE_ERROR
	Detail string
}

func (e *Error) Error() string { return e.Code + ": " + e.Detail }

// Exit is runback's CLI exit status for a verdict: 0 valid, 1 invalid,
// 2 unverified.
func Exit(verdict string) int {
	switch verdict {
	case Valid:
		return 0
	case Unverified:
		return 2
	}
	return 1
}

// Verify checks a cassette file's bytes. The events are read one at a
// time and not kept: what verification needs of each (its chain hash, its
// oracle entry, its seq) is a few dozen bytes plus the entry's output.
func Verify(data []byte, opt Options) (Result, error) {
	var ev eventsState
	rec, rep, err := js.ParseStream(data, &js.Stream{Key: "events", Start: ev.reset, Item: ev.add})
	if err != nil {
		code := "JSON_SYNTAX"
		switch {
		case errors.Is(err, js.ErrDepth):
			code = "DEPTH_LIMIT"
		case errors.Is(err, js.ErrTooManyValues):
			code = "VALUE_LIMIT"
		}
		return Result{}, &Error{code, err.Error()}
	}
	res, err := verifyValue(rec, &ev, opt)
	if err != nil {
		var te *js.TypeError
		if errors.As(err, &te) {
			return Result{}, &Error{"TYPE_ERROR", te.Error() + " (runback's verifier throws here)"}
		}
		return Result{}, err
	}
	res.Findings = append(readerFindings(rep), res.Findings...)
	res.finish(opt.Strict)
	return res, nil
}

// eventInfo is what is kept of one event.
type eventInfo struct {
	seqKey float64 // (seq ?? 0) as a number, for the oracle order
	seq    float64 // seq when it is a finite number
	seqNum bool
	entry  []byte // canonical oracle entry, nil for none
}

// eventsState verifies the events array as it is read.
type eventsState struct {
	h        oracle.Hasher
	prev     string
	chainOK  bool
	firstBad int
	items    []eventInfo
	entryErr error      // an oracle entry runback's code throws on
	seqErr   error      // a seq runback's sort throws on (with two or more events)
	nulls    bool       // a null event (runback's sort throws with two or more)
	runIDs   []js.Value // distinct truthy run_id values, in order
	end      *js.Value  // the first run-end event
}

func (s *eventsState) reset() {
	*s = eventsState{chainOK: true, firstBad: -1, items: s.items[:0]}
}

func (s *eventsState) add(i int, e *js.Value) error {
	s.prev = s.h.EventHash(s.prev, e)
	if got := js.Prop(e, "_hash"); s.chainOK && (got.Kind != js.String || got.Str != s.prev) {
		s.chainOK, s.firstBad = false, i
	}
	var info eventInfo
	if sq := js.Prop(e, "seq"); sq.Kind == js.Number && !math.IsInf(sq.Num, 0) && !math.IsNaN(sq.Num) {
		info.seq, info.seqNum = sq.Num, true
	}
	// The sort key, coerced as for two or more events; whether it throws
	// is decided at the end, when the count is known.
	key, _, err := oracle.SeqKey(e, 2)
	info.seqKey = key
	if e.IsNullish() {
		s.nulls = true
	} else if err != nil && s.seqErr == nil {
		s.seqErr = err
	}
	entry, ok, err := s.h.EntryOf(e)
	if err != nil && s.entryErr == nil {
		s.entryErr = err
	} else if ok {
		info.entry = s.h.EntryBytes(&entry)
	}
	s.items = append(s.items, info)
	if id := js.Prop(e, "run_id"); e.Truthy() && id.Truthy() {
		dup := false
		for j := range s.runIDs {
			dup = dup || js.SameValueZero(&s.runIDs[j], id)
		}
		if !dup {
			s.runIDs = append(s.runIDs, id.Clone())
		}
	}
	if s.end == nil && e.Truthy() && isString(js.Prop(e, "type"), "run") && isString(js.Prop(e, "phase"), "end") {
		c := e.Clone()
		s.end = &c
	}
	return nil
}

// cassette is the oracle-stream digest and entry count, or what runback
// would throw.
func (s *eventsState) cassette() (string, int, error) {
	n := len(s.items)
	if n >= 2 && s.nulls {
		return "", 0, &js.TypeError{Msg: "Cannot read properties of null (reading 'seq')"}
	}
	if n >= 2 && s.seqErr != nil {
		return "", 0, s.seqErr
	}
	if s.entryErr != nil {
		return "", 0, s.entryErr
	}
	keys := make([]float64, n)
	for i := range s.items {
		keys[i] = s.items[i].seqKey
	}
	prev, count := "", 0
	for _, i := range oracle.SortBySeq(keys) {
		if s.items[i].entry != nil {
			prev = s.h.StepBytes(prev, s.items[i].entry)
			count++
		}
	}
	if prev == "" {
		prev = oracle.EmptyDigest
	}
	return prev, count, nil
}

func verifyValue(rec *js.Value, ev *eventsState, opt Options) (Result, error) {
	manifest := js.Prop(rec, "manifest")
	events := js.Prop(rec, "events")
	if !manifest.Truthy() || events.Kind != js.Array {
		return Result{}, &Error{"NOT_A_CASSETTE", "Not a runback.cassette record — missing manifest or events array."}
	}
	if len(events.Items) > 0 { // not streamed (a caller's own value)
		ev.reset()
		for i := range events.Items {
			_ = ev.add(i, &events.Items[i])
		}
	} else if ev.items == nil {
		ev.reset() // an empty array, streamed or not
	}
	res := Result{FirstBadEvent: ev.firstBad, ConsistencyFailures: []string{}}
	digest := ev.prev
	if digest == "" {
		digest = oracle.EmptyDigest
	}
	cassette, entries, err := ev.cassette()
	if err != nil {
		return res, err
	}
	res.Checks.Chain = ev.chainOK
	res.Checks.Digest = isString(js.Prop(manifest, "content_digest"), digest)
	replay := js.Prop(manifest, "replay")
	res.Checks.Cassette = isString(js.Prop(replay, "cassette_digest"), cassette)
	schema := js.Prop(rec, "$schema")
	for _, s := range KnownSchemas {
		if isString(schema, s) {
			res.Checks.Schema = true
		}
	}

	sig, alg, err := checkSignature(manifest, opt, &res)
	if err != nil {
		return res, err
	}
	res.Checks.Signature, res.Checks.SignatureAlg = sig, alg
	res.SignatureNote = signatureNote(sig, alg)

	reasons, err := consistency(rec, manifest, ev)
	if err != nil {
		return res, err
	}
	res.ConsistencyFailures = append(res.ConsistencyFailures, reasons...)
	res.Checks.Consistent = len(reasons) == 0

	c := res.Checks
	res.Integrity = c.Chain && c.Digest && c.Cassette && c.Schema && c.Consistent
	res.Valid = res.Integrity && c.Signature == SigValid
	switch {
	case !res.Integrity || c.Signature == SigInvalid:
		res.Verdict = Invalid
	case res.Valid:
		res.Verdict = Valid
	default:
		res.Verdict = Unverified
	}
	res.RunbackVerdict = res.Verdict
	res.Meta = meta(rec, manifest, ev)
	res.Findings = findings(rec, manifest, ev, entries, &res)
	return res, nil
}

func isString(v *js.Value, s string) bool { return v.Kind == js.String && v.Str == s }

// finish applies --strict and lists the failed checks.
func (r *Result) finish(strict bool) {
	r.Strict = strict
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	if strict && len(r.Findings) > 0 {
		r.Verdict = Invalid
		r.Valid = false
	}
	c := r.Checks
	for _, f := range []struct {
		name string
		ok   bool
	}{{"schema", c.Schema}, {"consistent", c.Consistent}, {"chain", c.Chain}, {"digest", c.Digest}, {"cassette", c.Cassette}} {
		if !f.ok {
			r.FailedChecks = append(r.FailedChecks, f.name)
		}
	}
	if c.Signature == SigInvalid {
		r.FailedChecks = append(r.FailedChecks, "signature")
	}
	if r.FailedChecks == nil {
		r.FailedChecks = []string{}
	}
}

// consistency binds the unsigned summary to the signed events, with
// runback's reasons word for word.
func consistency(rec, manifest *js.Value, ev *eventsState) ([]string, error) {
	var reasons []string
	mid := js.Prop(manifest, "run_id")
	if mid.Truthy() && len(ev.runIDs) > 0 {
		found := false
		for i := range ev.runIDs {
			found = found || js.SameValueZero(&ev.runIDs[i], mid)
		}
		if !found {
			s, err := js.ToString(mid)
			if err != nil {
				return nil, err
			}
			reasons = append(reasons, fmt.Sprintf("manifest.run_id (%s) is not the run_id in the signed events", s))
		}
	}
	end := ev.end
	run := js.Prop(rec, "run")
	if !run.Truthy() || end == nil {
		return reasons, nil
	}
	null := js.NullValue()
	orNull := func(v *js.Value) *js.Value {
		if v.IsNullish() {
			return &null
		}
		return v
	}
	if st := js.Prop(run, "status"); st.Kind != js.Undefined && !js.StrictEqual(st, js.Prop(end, "status")) {
		a, err := js.ToString(st)
		if err != nil {
			return nil, err
		}
		b, err := js.ToString(js.Prop(end, "status"))
		if err != nil {
			return nil, err
		}
		reasons = append(reasons, fmt.Sprintf("run.status (%s) contradicts the sealed run-end event (%s)", a, b))
	}
	if out := js.Prop(run, "output"); out.Kind != js.Undefined && !js.JSONEqual(out, orNull(js.Prop(end, "output"))) {
		reasons = append(reasons, "run.output does not match the sealed run-end event")
	}
	if e := js.Prop(run, "error"); e.Kind != js.Undefined && !js.JSONEqual(e, orNull(js.Prop(end, "error"))) {
		reasons = append(reasons, "run.error does not match the sealed run-end event")
	}
	return reasons, nil
}

func meta(rec, manifest *js.Value, ev *eventsState) Meta {
	m := Meta{EventCount: len(ev.items)}
	null := js.NullValue()
	if s := js.Prop(rec, "$schema"); !s.IsNullish() {
		m.Schema = js.RawOf(s)
	} else {
		m.Schema = js.RawOf(&null)
	}
	if len(ev.runIDs) > 0 {
		m.RunID = js.RawOf(&ev.runIDs[0])
	} else if id := js.Prop(manifest, "run_id"); id.Kind != js.Undefined {
		m.RunID = js.RawOf(id)
	}
	if g := js.Prop(manifest, "generated_at"); g.Kind != js.Undefined {
		m.GeneratedAt = js.RawOf(g)
	}
	if u := js.Prop(manifest, "spec_url"); !u.IsNullish() {
		m.SpecURL = js.RawOf(u)
	} else {
		def := js.Str("https://runback.dev/spec")
		m.SpecURL = js.RawOf(&def)
	}
	return m
}

// signatureNote is what a signature state does and does not establish.
func signatureNote(state string, alg *string) string {
	hmacAlg := alg != nil && *alg == algHMAC
	switch state {
	case SigValid:
		if hmacAlg {
			return "HMAC-SHA256 matches a key you supplied: this proves custody of a shared secret, not identity (anyone holding the key could have made this cassette)"
		}
		return "Ed25519 signature verified against a pinned key"
	case SigValidUnpinned:
		return "Ed25519 signature is sound, but its key is not pinned: anyone can generate a key pair and sign a self-consistent cassette (pass --pubkey)"
	case SigUnsigned:
		return "the cassette is not signed"
	case SigNoKey:
		if hmacAlg {
			return "HMAC-SHA256 is symmetric: it can only be checked with the shared secret (pass --hmac-key FILE), and even then proves custody, not identity"
		}
		return "no public key embedded in the cassette"
	case SigRevoked:
		return "signed by a revoked key: sound mathematics, untrustworthy signer"
	}
	if hmacAlg {
		return "HMAC-SHA256 does not match the key supplied"
	}
	return "signature does not verify"
}
