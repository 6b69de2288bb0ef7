package cassettecheck

import (
	"fmt"
	"math"
	"sort"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/record"
)

// Finding codes: what runback's verifier accepts without a word, named.
// Each is reachable by a fixture in testdata/runback (finding_CODE.json).
const (
	EmptyRecord        = "EMPTY_RECORD"         // zero events
	NoRunEnd           = "NO_RUN_END"           // no run-end event: the summary binds to nothing
	SeqOutOfOrder      = "SEQ_OUT_OF_ORDER"     // events array not in seq order (the chain and the oracle stream see different orders)
	SeqDuplicate       = "SEQ_DUPLICATE"        // two events with one seq
	SeqNotNumber       = "SEQ_NOT_NUMBER"       // a seq that is not a finite number (sorted by JS coercion)
	DuplicateKey       = js.NoteDuplicateKey    // {"a":1,"a":2}: the hash covers the last one only
	LoneSurrogate      = js.NoteLoneSurrogate   // "\ud800": not Unicode text
	InvalidUTF8        = js.NoteInvalidUTF8     // bytes that Node reads as U+FFFD
	NumberOverflow     = js.NoteOverflow        // 1E400 hashed as null
	NumberPrecision    = js.NotePrecision       // an integer beyond 2^53 hashed as another number
	ProtoKey           = js.NoteProtoKey        // an own "__proto__" member (older verifiers dropped it)
	HexTrailingGarbage = "HEX_TRAILING_GARBAGE" // signature value with non-hex characters or an odd length, ignored by Node's hex decoder
	HexUppercase       = "HEX_UPPERCASE"        // signature hex in upper case: accepted for Ed25519, refused for HMAC
	SignatureNotString = "SIGNATURE_NOT_STRING" // signature value coerced with String()
	SmallOrderKey      = "SMALL_ORDER_KEY"      // embedded key is a small-order or non-canonical point: forgeries verify
	NonEd25519Key      = "NON_ED25519_KEY"      // embedded key of another algorithm
	PrivateKeyEmbedded = "PRIVATE_KEY_EMBEDDED" // "pubkey" holds the private key: anyone can re-sign
	UnknownSchema      = "UNKNOWN_SCHEMA"       // $schema runback does not know
	UnknownSigAlg      = "UNKNOWN_SIGNATURE_ALG"
	RevokedKey         = "REVOKED_KEY"          // signed by a revoked key (runback's verdict: unverified)
	EventCountMismatch = "EVENT_COUNT_MISMATCH" // manifest.event_count is not the number of events
	EntryCountMismatch = "ENTRY_COUNT_MISMATCH" // manifest.replay.entry_count is not the number of oracle entries
	SignedFlagMismatch = "SIGNED_FLAG_MISMATCH" // manifest.signed disagrees with the signature present
	RunIDMixed         = "RUN_ID_MIXED"         // events carry more than one run_id
)

// Finding is one named observation; Paths are where (first few).
type Finding struct {
	Code   string   `json:"code"`
	Detail string   `json:"detail"`
	Count  int      `json:"count,omitempty"`
	Paths  []string `json:"paths,omitempty"`
}

var readerDetail = map[string]string{
	DuplicateKey:    "duplicate object key: JSON.parse keeps the last value, so the hash covers a value a strict reader would refuse",
	LoneSurrogate:   "string with a lone UTF-16 surrogate: not Unicode text, hashed as an escape",
	InvalidUTF8:     "bytes that are not UTF-8: read as U+FFFD before hashing",
	NumberOverflow:  "number beyond the double range: hashed as null",
	NumberPrecision: "integer beyond 2^53: hashed as a different number",
	ProtoKey:        "own \"__proto__\" member: hashed, but verifiers before runback 2.1 dropped it",
}

func readerFindings(rep *js.Report) []Finding {
	var out []Finding
	codes := make([]string, 0, len(rep.Counts))
	for c := range rep.Counts {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		out = append(out, Finding{Code: c, Detail: readerDetail[c], Count: rep.Counts[c], Paths: rep.Paths[c]})
	}
	return out
}

func findings(rec, manifest *js.Value, ev *eventsState, entries int, res *Result) []Finding {
	n := len(ev.items)
	var out []Finding
	add := func(code, format string, args ...any) {
		out = append(out, Finding{Code: code, Detail: fmt.Sprintf(format, args...)})
	}
	if !res.Checks.Schema {
		s, _ := js.ToString(js.Prop(rec, "$schema"))
		add(UnknownSchema, "$schema %q is not one runback checks (%v)", s, KnownSchemas)
	}
	if n == 0 {
		add(EmptyRecord, "the cassette has no events: nothing is attested")
	} else if ev.end == nil {
		add(NoRunEnd, "no run-end event: the run summary is bound to nothing and the run may be cut short")
	}
	seqFindings(ev.items, add)
	if len(ev.runIDs) > 1 {
		add(RunIDMixed, "events carry %d different run_id values", len(ev.runIDs))
	}
	if c := js.Prop(manifest, "event_count"); !(c.Kind == js.Number && c.Num == float64(n)) {
		add(EventCountMismatch, "manifest.event_count is %s, the cassette has %d events", js.Canonical(c), n)
	}
	if n := js.Prop(js.Prop(manifest, "replay"), "entry_count"); !(n.Kind == js.Number && n.Num == float64(entries)) {
		add(EntryCountMismatch, "manifest.replay.entry_count is %s, the events give %d oracle entries", js.Canonical(n), entries)
	}
	signed := js.Prop(manifest, "signed")
	hasSig := res.Checks.Signature != SigUnsigned
	if signed.Kind != js.Bool || signed.Bool != hasSig {
		add(SignedFlagMismatch, "manifest.signed is %s but the cassette is %s", js.Canonical(signed), map[bool]string{true: "signed", false: "unsigned"}[hasSig])
	}
	sn := res.sig
	if sn.valueNotString {
		add(SignatureNotString, "manifest.signature.value is not a string; runback converts it with String()")
	}
	if sn.hexGarbage {
		add(HexTrailingGarbage, "manifest.signature.value is not an even run of hex digits; Node's hex decoder stops at the first bad pair")
	}
	if sn.hexUpper {
		add(HexUppercase, "manifest.signature.value uses upper-case hex")
	}
	if sn.algUnknown {
		alg, _ := js.ToString(js.Prop(js.Prop(manifest, "signature"), "alg"))
		add(UnknownSigAlg, "signature alg %q is neither Ed25519 nor HMAC-SHA256; runback checks it as HMAC-SHA256", alg)
	}
	if sn.nonEd25519 {
		add(NonEd25519Key, "the embedded key is not an Ed25519 key (logbook does not verify it; Node may)")
	}
	if sn.privateKeyPEM {
		add(PrivateKeyEmbedded, "manifest.signature.pubkey holds a PRIVATE key: anyone can sign with it")
	}
	if pub := embeddedKey(manifest); pub != nil {
		if why := record.WeakKey(pub); why != "" {
			add(SmallOrderKey, "embedded Ed25519 key: %s; signatures under it prove nothing", why)
		}
	}
	if res.Checks.Signature == SigRevoked {
		add(RevokedKey, "signed by a revoked key; runback's verdict is unverified, a compromised key proves nothing")
	}
	return out
}

func seqFindings(items []eventInfo, add func(code, format string, args ...any)) {
	prev := math.Inf(-1)
	seen := map[float64]bool{}
	outOfOrder, dup, notNum := -1, -1, -1
	for i := range items {
		if !items[i].seqNum {
			if notNum < 0 {
				notNum = i
			}
			continue
		}
		s := items[i].seq
		if seen[s] && dup < 0 {
			dup = i
		}
		seen[s] = true
		if s < prev && outOfOrder < 0 {
			outOfOrder = i
		}
		prev = s
	}
	if outOfOrder >= 0 {
		add(SeqOutOfOrder, "events[%d] comes before a lower seq in the array: the event chain (array order) and the oracle stream (seq order) attest different orders", outOfOrder)
	}
	if dup >= 0 {
		add(SeqDuplicate, "events[%d] repeats a seq", dup)
	}
	if notNum >= 0 {
		add(SeqNotNumber, "events[%d].seq is not a finite number; runback sorts it by JavaScript coercion", notNum)
	}
}

// embeddedKey is the Ed25519 key a signature names, when it parses.
func embeddedKey(manifest *js.Value) []byte {
	sig := js.Prop(manifest, "signature")
	if !isString(js.Prop(sig, "alg"), algEd25519) {
		return nil
	}
	var n sigNotes
	pub, ok := parseKey(js.Prop(sig, "pubkey"), &n)
	if !ok {
		return nil
	}
	return pub
}
