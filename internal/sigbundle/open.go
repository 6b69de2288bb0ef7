package sigbundle

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/edverify"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Verified is a bundle whose signature verified under a pinned key.
type Verified struct {
	Facts
	AttestorKeyID string
}

// Open reads a bundle and returns its facts once its signature verifies
// under the pinned key its hint names. It reads only the shape Sign
// writes: any other member, a second signature, transparency-log entries
// or a certificate are refused (this checker trusts a pinned key, nothing
// else). Every error is an ATTEST_INVALID reason.
func Open(bundle []byte, keys []ed25519.PublicKey) (Verified, error) {
	var out Verified
	if len(bundle) > MaxSize {
		return out, fmt.Errorf("the bundle is over %d bytes", MaxSize)
	}
	b, err := strictjson.Parse(bundle, strictjson.Options{MaxDepth: 6})
	if err != nil {
		return out, fmt.Errorf("the bundle is not strict JSON: %v", err)
	}
	if err := members(b, "mediaType", "verificationMaterial", "dsseEnvelope"); err != nil {
		return out, fmt.Errorf("bundle: %v", err)
	}
	if mt, _ := b.GetString("mediaType"); mt != MediaType {
		return out, fmt.Errorf("bundle mediaType is %q, want %q", mt, MediaType)
	}
	vm := b.Get("verificationMaterial")
	if err := members(vm, "publicKey"); err != nil {
		return out, fmt.Errorf("bundle verificationMaterial: %v", err)
	}
	pk := vm.Get("publicKey")
	if err := members(pk, "hint"); err != nil {
		return out, fmt.Errorf("bundle publicKey: %v", err)
	}
	hint, _ := pk.GetString("hint")
	env := b.Get("dsseEnvelope")
	if err := members(env, "payload", "payloadType", "signatures"); err != nil {
		return out, fmt.Errorf("bundle dsseEnvelope: %v", err)
	}
	if pt, _ := env.GetString("payloadType"); pt != PayloadType {
		return out, fmt.Errorf("bundle payloadType is %q, want %q", pt, PayloadType)
	}
	p64, _ := env.GetString("payload")
	body, err := base64.StdEncoding.Strict().DecodeString(p64)
	if err != nil || strings.ContainsAny(p64, "\r\n") {
		return out, errors.New("bundle payload is not standard base64")
	}
	sigs := env.Get("signatures")
	if sigs.Kind != strictjson.Array || len(sigs.Items) != 1 {
		return out, errors.New("bundle signatures is not an array of one signature")
	}
	s := &sigs.Items[0]
	if err := members(s, "sig"); err != nil {
		return out, fmt.Errorf("bundle signature: %v", err)
	}
	s64, _ := s.GetString("sig")
	sig, err := base64.StdEncoding.Strict().DecodeString(s64)
	if err != nil || len(sig) != ed25519.SignatureSize || strings.ContainsAny(s64, "\r\n") {
		return out, errors.New("bundle signature is not 64 bytes of standard base64")
	}
	var key ed25519.PublicKey
	for _, k := range keys {
		if Hint(k) == hint {
			key = k
		}
	}
	switch {
	case key == nil:
		return out, fmt.Errorf("the bundle's key hint %q names no pinned attestor key", hint)
	case record.WeakKey(key) != "":
		return out, errors.New("the pinned key the hint names is weak: under it a forgery would verify")
	case !edverify.Verify(key, attest.PAE(PayloadType, body), sig):
		return out, errors.New("the bundle's signature does not verify under the pinned key its hint names")
	}
	out.AttestorKeyID = attest.KeyID(key)
	if out.Facts, err = parseStatement(body, out.AttestorKeyID); err != nil {
		return out, err
	}
	return out, nil
}

// parseStatement reads a signed statement: Statement's shape exactly,
// its predicate naming attestorKeyID.
func parseStatement(body []byte, attestorKeyID string) (Facts, error) {
	var f Facts
	st, err := strictjson.Parse(body, strictjson.Options{MaxDepth: 5})
	if err != nil {
		return f, fmt.Errorf("statement is not strict JSON: %v", err)
	}
	if err := members(st, "_type", "subject", "predicateType", "predicate"); err != nil {
		return f, fmt.Errorf("statement: %v", err)
	}
	if t, _ := st.GetString("_type"); t != StatementType {
		return f, fmt.Errorf("statement _type is %q, want %q", t, StatementType)
	}
	if t, _ := st.GetString("predicateType"); t != PredicateType {
		return f, fmt.Errorf("statement predicateType is %q, want %q", t, PredicateType)
	}
	if err := f.subjects(st.Get("subject")); err != nil {
		return f, err
	}
	p := st.Get("predicate")
	if err := members(p, "attestorKeyId", "chainTip", "keyId", "level", "recordId", "sessionId", "stepCount", "?policyDigests", "?logProof"); err != nil {
		return f, fmt.Errorf("predicate: %v", err)
	}
	if a, _ := p.GetString("attestorKeyId"); a != attestorKeyID {
		return f, fmt.Errorf("predicate attestorKeyId %q is not the signer's, %s", a, attestorKeyID)
	}
	f.ChainTip, _ = p.GetString("chainTip")
	f.KeyID, _ = p.GetString("keyId")
	f.Level, _ = p.GetString("level")
	f.SessionID, _ = p.GetString("sessionId")
	if id, _ := p.GetString("recordId"); id != f.RecordID {
		return f, fmt.Errorf("predicate recordId %q is not the record subject's, %q", id, f.RecordID)
	}
	if f.StepCount, err = count(p.Get("stepCount")); err != nil {
		return f, fmt.Errorf("predicate stepCount: %v", err)
	}
	if d := p.Get("policyDigests"); d != nil {
		if d.Kind != strictjson.Array {
			return f, errors.New("predicate policyDigests is not an array")
		}
		f.Policies = []string{}
		for _, it := range d.Items {
			if it.Kind != strictjson.String {
				return f, errors.New("predicate policyDigests holds a non-string")
			}
			f.Policies = append(f.Policies, it.Str)
		}
	}
	if lp := p.Get("logProof"); lp != nil {
		if f.LogProof, err = logProof(lp); err != nil {
			return f, fmt.Errorf("predicate logProof: %v", err)
		}
	}
	if err := f.check(); err != nil {
		return f, fmt.Errorf("statement: %v", err)
	}
	return f, nil
}

// subjects reads the record subject, first, then one per commit.
func (f *Facts) subjects(v *strictjson.Value) error {
	if v == nil || v.Kind != strictjson.Array || len(v.Items) == 0 {
		return errors.New("statement subject is not a non-empty array")
	}
	for i := range v.Items {
		s := &v.Items[i]
		if err := members(s, "name", "digest"); err != nil {
			return fmt.Errorf("subject %d: %v", i, err)
		}
		name, _ := s.GetString("name")
		alg, prefix := "gitCommit", CommitSubjectPrefix
		if i == 0 {
			alg, prefix = "sha256", RecordSubjectPrefix
		}
		d := s.Get("digest")
		if err := members(d, alg); err != nil {
			return fmt.Errorf("subject %d digest: %v", i, err)
		}
		sum, _ := d.GetString(alg)
		id, ok := strings.CutPrefix(name, prefix)
		switch {
		case !ok:
			return fmt.Errorf("subject %d name %q does not start with %q", i, name, prefix)
		case i == 0:
			f.RecordID, f.RecordSHA256 = id, sum
		case id != sum:
			return fmt.Errorf("subject %d names commit %s and digests %s", i, id, sum)
		default:
			f.Commits = append(f.Commits, sum)
		}
	}
	return nil
}

func logProof(v *strictjson.Value) (*LogProof, error) {
	if err := members(v, "format", "origin", "index", "treeSize", "proof"); err != nil {
		return nil, err
	}
	if f, _ := v.GetString("format"); f != LogProofFormat {
		return nil, fmt.Errorf("format %q, want %q", f, LogProofFormat)
	}
	p := &LogProof{}
	p.Origin, _ = v.GetString("origin")
	p.Proof, _ = v.GetString("proof")
	var err error
	if p.Index, err = count(v.Get("index")); err != nil {
		return nil, fmt.Errorf("index: %v", err)
	}
	if p.TreeSize, err = count(v.Get("treeSize")); err != nil {
		return nil, fmt.Errorf("treeSize: %v", err)
	}
	return p, nil
}

// count reads a JSON number that is a whole number from 0 to 2^53-1
// written as JCS writes it.
func count(v *strictjson.Value) (int64, error) {
	if v == nil || v.Kind != strictjson.Number {
		return 0, errors.New("not a number")
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil || n < 0 || n > 1<<53-1 || strconv.FormatInt(n, 10) != v.Str {
		return 0, fmt.Errorf("%q is not a whole number from 0 to 2^53-1", v.Str)
	}
	return n, nil
}

// members: v is an object whose members are exactly names (a name that
// starts with "?" may be absent), each a string but for the ones whose
// values are objects or arrays in this shape.
func members(v *strictjson.Value, names ...string) error {
	if v == nil || v.Kind != strictjson.Object {
		return errors.New("not an object")
	}
	known := map[string]bool{}
	for _, n := range names {
		opt := strings.HasPrefix(n, "?")
		n = strings.TrimPrefix(n, "?")
		known[n] = true
		if !opt && v.Get(n) == nil {
			return fmt.Errorf("missing %q", n)
		}
	}
	for _, m := range v.Members {
		if !known[m.Key] {
			return fmt.Errorf("unknown member %q", m.Key)
		}
		want := strictjson.String
		switch m.Key {
		case "verificationMaterial", "publicKey", "dsseEnvelope", "predicate", "digest", "logProof":
			want = strictjson.Object
		case "signatures", "subject", "policyDigests":
			want = strictjson.Array
		case "stepCount", "index", "treeSize":
			want = strictjson.Number
		}
		if m.Value.Kind != want {
			return fmt.Errorf("%q has the wrong type", m.Key)
		}
	}
	return nil
}
