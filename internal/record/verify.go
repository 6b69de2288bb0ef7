// Package record checks and assembles records of the agent-work/record@0
// format (spec record-format.md). Verify takes bytes and pinned keys and
// returns a verdict; it has no clock, no files and no globals beyond the
// embedded schema.
package record

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"filippo.io/edwards25519"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Refusal codes, in the order the verifier checks them (spec §7).
const (
	NotJSON           = "NOT_JSON"
	Shape             = "SHAPE"
	StepOutOfOrder    = "STEP_OUT_OF_ORDER"
	ChainBroken       = "CHAIN_BROKEN"
	StepCountMismatch = "STEP_COUNT_MISMATCH"
	TipMismatch       = "TIP_MISMATCH"
	SignatureInvalid  = "SIGNATURE_INVALID"
	SignerNotTrusted  = "SIGNER_NOT_TRUSTED"
)

// MaxDepth is the deepest nesting a record may have (spec §1).
const MaxDepth = 64

// Options are the caller's policy (spec §7 step 8).
type Options struct {
	// Pinned holds trusted Ed25519 public keys (32 bytes each). When not
	// empty, a sound signature by any other key is SIGNER_NOT_TRUSTED.
	Pinned []ed25519.PublicKey
}

// Result is the verdict. RecordID, KeyID and StepCount are set once the
// signature has verified (accepted, or refused only by policy).
type Result struct {
	OK        bool
	Code      string // "" when OK
	Detail    string
	RecordID  string
	KeyID     string
	StepCount int64
	Pinned    bool // the signer is one of Options.Pinned
}

// Verify checks a record file's bytes in the order of spec §7 and stops at
// the first failure. It never panics on any input.
func Verify(data []byte, opt Options) Result {
	rec, err := strictjson.Parse(data, strictjson.Options{MaxDepth: MaxDepth})
	if err != nil {
		return refuse(NotJSON, err.Error())
	}
	if d := checkValues(rec); d != "" {
		return refuse(Shape, d)
	}
	if d := checkSchema(rec); d != "" {
		return refuse(Shape, d)
	}
	if d := checkInstants(rec); d != "" {
		return refuse(Shape, d)
	}
	steps := rec.Get("steps")
	for i := range steps.Items {
		if seq := steps.Items[i].Get("seq"); intOf(seq) != int64(i) {
			return refuse(StepOutOfOrder, fmt.Sprintf("steps[%d].seq is %s", i, seq.Str))
		}
	}
	// The steps are canonicalized once, straight into the signed bytes,
	// and each step's hash is taken from those bytes.
	parts := partsOf(rec)
	prefix, suffix, err := envelope(parts)
	if err != nil {
		return refuse(Shape, err.Error()) // unreachable after the shape check
	}
	signed, r, ok := chainAndSteps(steps, append(make([]byte, 0, len(data)+len(prefix)+len(suffix)), prefix...))
	if !ok {
		return r
	}
	signed = append(signed, suffix...)
	count := rec.Get("stepCount")
	if intOf(count) != int64(len(steps.Items)) {
		return refuse(StepCountMismatch, fmt.Sprintf("stepCount is %s, the record has %d steps", count.Str, len(steps.Items)))
	}
	tip := chain.EmptyTip
	if n := len(steps.Items); n > 0 {
		tip, _ = steps.Items[n-1].GetString("hash")
	}
	if got, _ := rec.GetString("chainTip"); got != tip {
		return refuse(TipMismatch, fmt.Sprintf("chainTip is %s, the chain ends at %s", got, tip))
	}
	return checkSignature(parts, signed, len(steps.Items), opt)
}

func partsOf(rec *strictjson.Value) Parts {
	pub, _ := rec.Get("signature").GetString("publicKey")
	return Parts{
		Session:        rec.Get("session"),
		StepCount:      rec.Get("stepCount"),
		ChainTip:       rec.Get("chainTip"),
		PublicKey:      pub,
		SignerIdentity: rec.Get("signerIdentity"),
		Signature:      rec.Get("signature"),
	}
}

// intOf reads an integer that the shape check has already bounded; -0 is 0.
func intOf(v *strictjson.Value) int64 {
	n, _ := strconv.ParseInt(v.Str, 10, 64)
	return n
}

func refuse(code, detail string) Result { return Result{Code: code, Detail: detail} }

// stepKeys are a step's keys in RFC 8785 order; the shape check has made
// sure every step has exactly these.
var stepKeys = [...]string{"at", "data", "dossier", "hash", "inputsSha256", "kind", "outputsSha256", "prev", "seq", "summary"}

// chainAndSteps walks the steps in order (spec §7 step 4) and, in the same
// pass, writes the canonical steps array that the signed bytes contain:
// each step is canonicalized once, and its hash is the SHA-256 of those
// bytes with the "hash" member left out.
func chainAndSteps(steps *strictjson.Value, buf []byte) ([]byte, Result, bool) {
	b := jcs.Buffer{B: append(buf, '[')}
	h := sha256.New()
	var sum [sha256.Size]byte
	prev := ""
	for i := range steps.Items {
		st := &steps.Items[i]
		if i > 0 {
			b.B = append(b.B, ',')
		}
		start := len(b.B)
		b.B = append(b.B, '{')
		var hashFrom, hashTo int // the comma before "hash", the comma after its value
		// Canonical input (what the sealer writes) has the keys in order
		// already; otherwise each is looked up.
		ordered := len(st.Members) == len(stepKeys)
		for k := 0; ordered && k < len(stepKeys); k++ {
			ordered = st.Members[k].Key == stepKeys[k]
		}
		for k, key := range stepKeys {
			if k > 0 {
				b.B = append(b.B, ',')
			}
			switch key {
			case "hash":
				hashFrom = len(b.B) - 1
			case "inputsSha256":
				hashTo = len(b.B) - 1
			}
			_ = jcs.WriteString(&b, key)
			b.B = append(b.B, ':')
			var val *strictjson.Value
			if ordered {
				val = &st.Members[k].Value
			} else {
				val = st.Get(key)
			}
			if err := jcs.Write(&b, val); err != nil {
				return nil, refuse(ChainBroken, fmt.Sprintf("steps[%d]: %v", i, err)), false
			}
		}
		b.B = append(b.B, '}')
		h.Reset()
		h.Write(b.B[start:hashFrom])
		h.Write(b.B[hashTo:])
		hash := hex.EncodeToString(h.Sum(sum[:0]))
		p := st.Get("prev")
		switch {
		case i == 0 && p.Kind != strictjson.Null:
			return nil, refuse(ChainBroken, "steps[0].prev is not null"), false
		case i > 0 && (p.Kind != strictjson.String || p.Str != prev):
			return nil, refuse(ChainBroken, fmt.Sprintf("steps[%d].prev is not the hash of steps[%d]", i, i-1)), false
		}
		if got, _ := st.GetString("hash"); got != hash {
			return nil, refuse(ChainBroken, fmt.Sprintf("steps[%d].hash does not recompute", i)), false
		}
		prev = hash
	}
	return append(b.B, ']'), Result{}, true
}

// checkSignature is spec §7 steps 7 and 8, over the signed bytes.
func checkSignature(p Parts, signed []byte, nSteps int, opt Options) Result {
	valueHex, _ := p.Signature.GetString("value")
	spki, err1 := hex.DecodeString(p.PublicKey)
	sigBytes, err2 := hex.DecodeString(valueHex)
	if err1 != nil || err2 != nil {
		return refuse(SignatureInvalid, "undecodable hex") // the schema makes this unreachable
	}
	pub := ed25519.PublicKey(spki[len(spki)-ed25519.PublicKeySize:])
	if d := WeakKey(pub); d != "" {
		return refuse(SignatureInvalid, d)
	}
	if !ed25519.Verify(pub, signed, sigBytes) {
		return refuse(SignatureInvalid, "the Ed25519 signature does not verify over the signed bytes")
	}
	res := Result{
		OK:        true,
		Detail:    "signature verifies",
		RecordID:  RecordID(signed),
		KeyID:     KeyID(spki),
		StepCount: int64(nSteps),
	}
	if len(opt.Pinned) == 0 {
		return res
	}
	for _, k := range opt.Pinned {
		if bytes.Equal(k, pub) {
			res.Pinned = true
			return res
		}
	}
	res.OK, res.Code = false, SignerNotTrusted
	res.Detail = "the signature is sound, but the key " + res.KeyID + " is not among the pinned keys"
	return res
}

// WeakKey returns why an Ed25519 public key must not be trusted to verify
// anything, or "" for a sound key (spec §7 step 7): not a curve point, a
// non-canonical encoding, or a point of small order (a torsion point, under
// which universal forgeries verify).
func WeakKey(pub []byte) string {
	if len(pub) != ed25519.PublicKeySize {
		return "public key is not 32 bytes"
	}
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return "public key is not a point on the curve"
	}
	// SetBytes accepts y ≥ p and x=0 with the sign bit set; a re-encoding
	// that differs exposes both.
	if !bytes.Equal(p.Bytes(), pub) {
		return "public key is a non-canonical encoding"
	}
	if new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return "public key is a point of small order"
	}
	return ""
}
