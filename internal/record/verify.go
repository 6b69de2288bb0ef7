// Package record checks and assembles records of the agent-work/record@0
// format (spec record-format.md). Verify takes bytes and pinned keys and
// returns a verdict; it has no clock, no files and no globals beyond the
// embedded schema.
package record

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/edsign"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/record/signed"
	"github.com/logbook-project/logbook/internal/tombstone"
	"slices"
	"strconv"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/record/shape"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Options are the caller's policy (spec §7 step 8).
type Options struct {
	// Pinned holds trusted Ed25519 public keys (32 bytes each). When not
	// empty, a sound signature by any other key is SIGNER_NOT_TRUSTED.
	Pinned []ed25519.PublicKey
	// Revoked are keys whose signatures the caller no longer accepts (a
	// key that leaked, or was retired early): a sound signature by one is
	// KEY_REVOKED, checked before Pinned, so pinning a key never launders
	// its revocation.
	Revoked []ed25519.PublicKey
	// HashesAt lists step indices whose stated hash the caller wants
	// (Result.Hashes): a checkpoint's tip is compared with one of them.
	HashesAt []int64
	// EachStep, when set, is given each step as it is read, once its
	// shape is sound (a "data" read without its children is given read
	// whole): a reader of the steps (logbook-review) needs no second
	// parse. Its strings point into the record's bytes; the Value itself
	// is reused after EachStep returns. A step whose shape is refused,
	// and every step after it, is not given.
	EachStep func(i int, st *strictjson.Value)
	// Top, when set, is given the record's top-level object (its steps
	// left out) once its shape is sound.
	Top func(rec *strictjson.Value)
}

// Result is the verdict. RecordID, KeyID, StepCount and Facts are set once
// the signature has verified (accepted, or refused only by policy).
type Result struct {
	OK        bool
	Code      format.Code // "" when OK
	Detail    string
	RecordID  string
	KeyID     string
	StepCount int64
	Pinned    bool   // the signer is one of Options.Pinned
	Facts     *Facts // what the policy checks of step 8 read (internal/policy)
	// Gaps counts missing and repeated events (see package gaps). It is
	// set with RecordID: the steps' data is only worth counting once the
	// signature covers it.
	Gaps gaps.Counts
	// Hashes holds steps[i].hash for each i of Options.HashesAt that the
	// record has; set with RecordID, once the chain has been checked.
	Hashes map[int64]string
}

// Refuse makes r the refusal e: the one place a verdict turns to refused
// (internal/verdict's Outcome.Refuse calls it for every later step). What
// the signature showed (RecordID, KeyID, StepCount, Facts, Gaps) stays: a
// record refused by policy is still the record it is.
func (r *Result) Refuse(e *format.RefusalError) {
	r.OK, r.Code, r.Detail = false, e.Code, e.Detail
}

// Err is the refusal as a *format.RefusalError, for errors.As; nil when
// the record was accepted.
func (r *Result) Err() error {
	if r.OK {
		return nil
	}
	return format.Refuse(r.Code, r.Detail)
}

// Facts are the parts of a verified record that the policy checks beyond
// the pinned key read (spec §7 step 8): the signer's certificates, the
// timestamp token and the recorder. Byte strings are decoded from hex.
type Facts struct {
	PublicKey    ed25519.PublicKey // the signing key, 32 bytes
	Signature    []byte            // signature.value, 64 bytes
	RFC3161      []byte            // signature.rfc3161, a DER TimeStampToken; nil when absent
	Certificates [][]byte          // signerIdentity.certificates, DER, leaf first; nil when absent
	EndedAt      string            // session.endedAt (RFC 3339 UTC)
	SessionID    string            // session.id
	Recorder     *format.Recorder  // session.recorder; nil when absent
}

// Verify checks a record file's bytes in the order of spec §7 and reports
// the first failure in that order. It never panics on any input.
//
// It reads the file once and never holds the steps as a tree: the reader
// streams the steps one at a time through the shape, order and chain
// checks, which write each step's canonical bytes into the signed bytes,
// and keeps everything else. Each check keeps its first failure, and the
// verdict is chosen in the spec's order at the end.
//
// The signed bytes (spec §6) are as long as the record, and they are not
// held either: when the members that the envelope before the steps is
// built from (session, chainTip, stepCount, signature, signerIdentity)
// come before "steps" in the file, as the sealer writes them, the
// envelope's first part is built as the steps begin and the signed bytes
// are written, a batch of steps at a time, into the hashes of Ed25519
// (edsign.Verifier) and of the record id. Memory is then about the file.
// A record in another member order is checked the same way over the
// signed bytes built whole (verifyHeld).
func Verify(data []byte, opt Options) Result {
	return verify(data, opt, false)
}

func verify(data []byte, opt Options, hold bool) Result {
	w := stepWalker{hasher: newChainHasher(), data: data, want: opt.HashesAt, each: opt.EachStep, hold: hold}
	rec, err := strictjson.Parse(data, strictjson.Options{MaxDepth: format.MaxDepth, Discard: "steps", Stream: w.step,
		StreamStart: w.begin, StreamShallow: []string{"data", "dossier"}})
	chainResult, lastHash := w.hasher.wait(w.pending())
	if err != nil {
		return refuse(format.NotJSON, err.Error())
	}
	if tombstone.Is(rec) {
		// Not a damaged record: what a retention policy left of one.
		return refuse(format.Tombstoned, tombstone.Describe(rec, opt.Pinned))
	}
	if d := shape.Values(rec); d != "" {
		return refuse(format.Shape, d)
	}
	if d := shape.Top(rec); d != "" {
		return refuse(format.Shape, d)
	}
	if d := shape.SessionInstants(rec); d != "" {
		return refuse(format.Shape, d)
	}
	if d := shape.DER(rec); d != "" {
		return refuse(format.Shape, d)
	}
	if opt.Top != nil {
		opt.Top(rec)
	}
	for _, r := range []Result{w.shape, w.order, chainResult} {
		if r.Code != "" {
			return r
		}
	}
	parts := partsOf(rec)
	prefix, suffix, err := envelope(parts)
	if err != nil {
		return refuse(format.Shape, fmt.Sprintf("cannot build the signed bytes: %v", err)) // unreachable after the shape check
	}
	if intOf(parts.StepCount) != int64(w.n) {
		return refuse(format.StepCountMismatch, fmt.Sprintf("stepCount is %s, the record has %d steps", parts.StepCount.Str, w.n))
	}
	tip := chain.EmptyTip
	if w.n > 0 {
		tip = lastHash
	}
	if parts.ChainTip.Str != tip {
		return refuse(format.TipMismatch, fmt.Sprintf("chainTip is %s, the chain ends at %s", parts.ChainTip.Str, tip))
	}
	var res Result
	switch s := w.stream; {
	case s != nil && bytes.Equal(s.prefix, prefix) && s.sameKey(parts):
		// The envelope built as the steps began is the record's: the
		// signed bytes went to the hashes; only their end is left.
		s.sink.Write([]byte{']'})
		s.sink.Write(suffix)
		res = checkSignature(parts, w.n, opt, func(pub, sig []byte) (bool, string) {
			return s.ver.Verify(), signed.IDOf(s.id)
		})
	case !hold && (s != nil || w.signed.B == nil):
		// A signerIdentity after the steps (the envelope guessed without
		// it), or no steps array read as one: read again, holding the
		// signed bytes. The steps were handed to EachStep already.
		opt.EachStep, opt.Top = nil, nil
		return verify(data, opt, true)
	default:
		if w.signed.B == nil {
			w.signed.B = []byte{'['} // unreachable: a record without a steps array is refused above
		}
		res = checkSignature(parts, w.n, opt, func(pub, sig []byte) (bool, string) {
			return verifyHeld(w.signed.B, prefix, suffix, pub, sig)
		})
	}
	if res.RecordID != "" {
		res.Hashes = w.hashes
		res.Gaps = w.gaps.Counts()
	}
	return res
}

// verifyHeld checks the signature over the signed bytes built whole:
// steps is the canonical steps array without its closing bracket, written
// in a buffer the size of the file (canonical text is never longer than
// the text it came from, and the envelope's own few hundred bytes fit in
// the slack); it moves up to make room for the prefix.
func verifyHeld(steps, prefix, suffix, pub, sig []byte) (bool, string) {
	whole := slices.Grow(steps, len(prefix)+1+len(suffix))[:len(prefix)+len(steps)]
	copy(whole[len(prefix):], steps)
	copy(whole, prefix)
	whole = append(append(whole, ']'), suffix...)
	// The record id hashes the same bytes again: on the other core.
	id := make(chan string, 1)
	go func() { id <- RecordID(whole) }()
	v, err := edsign.NewVerifier(pub, sig)
	ok := err == nil
	if ok {
		v.Write(whole)
		ok = v.Verify()
	}
	return ok, <-id
}

// sigStream is the signed bytes on their way into the two hashes over
// them: Ed25519's k (with R and A before them) and the record id's.
type sigStream struct {
	prefix   []byte // the envelope up to the steps array, as hashed
	pub, sig []byte // the key and signature the Verifier was started with
	ver      *edsign.Verifier
	id       hash.Hash
	sink     io.Writer // ver and id
}

// sameKey reports whether the record's key and signature are the ones
// the stream was started with (they are: the members were read before the
// steps, and a key cannot appear twice; checked all the same).
func (s *sigStream) sameKey(p Parts) bool {
	pub, sig, ok := keyAndSig(p)
	return ok && bytes.Equal(pub, s.pub) && bytes.Equal(sig, s.sig)
}

// keyAndSig decodes signature.publicKey (its last 32 bytes are the key)
// and signature.value; ok is false when either does not decode.
func keyAndSig(p Parts) (pub, sig []byte, ok bool) {
	spki, sig, ok := spkiAndSig(p)
	if !ok {
		return nil, nil, false
	}
	return spki[len(spki)-ed25519.PublicKeySize:], sig, true
}

func spkiAndSig(p Parts) (spki, sig []byte, ok bool) {
	valueHex, _ := p.Signature.GetString("value")
	spki, err1 := hex.DecodeString(p.PublicKey)
	sig, err2 := hex.DecodeString(valueHex)
	if err1 != nil || err2 != nil || len(spki) < ed25519.PublicKeySize {
		return nil, nil, false
	}
	return spki, sig, true
}

// begin is StreamStart: the top-level members before the steps. When they
// hold what the envelope before the steps is built from, the signed bytes
// are hashed as the steps are read; otherwise they are held.
func (w *stepWalker) begin(before []strictjson.Member) error {
	w.started = true
	if !w.hold {
		w.stream = streamFrom(before)
	}
	if w.stream == nil {
		w.signed.B = append(bigbuf.Alloc(len(w.data)+4096), '[')
		return nil
	}
	w.hasher.sink = w.stream.sink
	w.signed.B = append(make([]byte, 0, 64<<10), '[')
	return nil
}

// streamFrom starts the hashes of the signed bytes from the top-level
// members read before the steps, or returns nil when they lack something
// the envelope's first part needs. A signerIdentity that is not among them
// is taken to be absent; Verify compares the envelope at the end and
// reads the record again when that was wrong.
func streamFrom(before []strictjson.Member) *sigStream {
	top := strictjson.Obj(slices.Clone(before)...)
	p := partsOf(&top)
	if p.Session == nil || p.Session.Kind != strictjson.Object || p.ChainTip == nil || p.StepCount == nil || p.Signature == nil {
		return nil
	}
	pub, sig, ok := keyAndSig(p)
	if !ok {
		return nil
	}
	prefix, _, err := envelope(p)
	if err != nil {
		return nil
	}
	ver, err := edsign.NewVerifier(pub, sig)
	if err != nil {
		return nil
	}
	s := &sigStream{prefix: prefix, pub: pub, sig: sig, ver: ver, id: signed.IDHash()}
	s.sink = io.MultiWriter(s.ver, s.id)
	s.sink.Write(prefix)
	return s
}

// pending is what the walker has written and not yet sent: the last
// batch's signed bytes when they are streamed, none when they are held.
func (w *stepWalker) pending() []byte {
	if w.stream == nil {
		return nil
	}
	return w.signed.B
}

// stepWalker checks one step at a time (spec §7 steps 2-4) and keeps the
// first failure of each kind, so the verdict follows the spec's order
// although the checks run in one pass.
type stepWalker struct {
	data         []byte // the record file
	n            int
	signed       jcs.Buffer // the signed bytes, steps written in place
	shape, order Result
	hasher       *chainHasher
	gaps         gaps.Tracker
	want         []int64          // Options.HashesAt
	hashes       map[int64]string // the stated hashes at want
	each         func(int, *strictjson.Value)
	hold         bool       // build the signed bytes whole, never stream them
	started      bool       // begin has run
	stream       *sigStream // the signed bytes' hashes, when streamed
}

func (w *stepWalker) step(i int, st *strictjson.Value) error {
	w.n = i + 1
	if !w.started {
		w.begin(nil) // unreachable: StreamStart comes first
	}
	if w.shape.Code != "" {
		return nil // a shape failure outranks anything a later step shows; read on for NOT_JSON
	}
	if d := shape.Values(st); d != "" {
		w.shape = refuse(format.Shape, fmt.Sprintf("/steps/%d%s", i, d))
		return nil
	}
	full := func() *strictjson.Value {
		v, err := strictjson.Parse(w.data[st.Start:st.End], strictjson.Options{MaxDepth: format.MaxDepth, Depth: 2})
		if err != nil {
			return st // unreachable: the same bytes were just read
		}
		return v
	}
	if d := shape.Step(st, i, full); d != "" {
		w.shape = refuse(format.Shape, d)
		return nil
	}
	if s, _ := st.GetString("at"); !instant.Valid(s) {
		w.shape = refuse(format.Shape, fmt.Sprintf("/steps/%d/at: %q is not a calendar instant", i, s))
		return nil
	}
	if w.order.Code == "" {
		if err := chain.Seq(int64(i), st.Get("seq")); err != nil {
			w.order.Refuse(format.AsRefusal(err, format.StepOutOfOrder))
		}
	}
	if i > 0 {
		w.signed.B = append(w.signed.B, ',')
	}
	start := len(w.signed.B)
	from, to, d := w.appendStep(st)
	if d != "" {
		w.shape = refuse(format.Shape, fmt.Sprintf("/steps/%d%s", i, d))
		return nil
	}
	w.gaps.ObserveData(st.Get("data"), w.data)
	if w.each != nil {
		if d := st.Get("data"); d != nil && d.Kind == strictjson.Object && len(d.Members) == 0 && d.End-d.Start > 2 {
			w.each(i, full()) // its data was read without its children
		} else {
			w.each(i, st)
		}
	}
	// The hash and the links are checked on another core. The strings
	// point into the record file or the heap, and the step's bytes are
	// never written again: nothing here is reused.
	for _, k := range w.want {
		if k == int64(i) {
			if w.hashes == nil {
				w.hashes = map[int64]string{}
			}
			w.hashes[k] = st.Get("hash").Str
		}
	}
	prev := st.Get("prev")
	w.hasher.add(chainJob{
		step: w.signed.B[start:len(w.signed.B):len(w.signed.B)],
		from: from - start, to: to - start,
		prevNull: prev.Kind == strictjson.Null, prev: prev.Str,
		hash: st.Get("hash").Str,
	})
	if w.hasher.full() {
		if w.stream == nil {
			w.hasher.send(nil) // the jobs point into the held signed bytes
		} else if next := w.hasher.send(w.signed.B); next != nil {
			w.signed.B = next
		} else {
			w.signed.B = make([]byte, 0, max(64<<10, cap(w.signed.B)))
		}
	}
	return nil
}

// stepKeys are a step's keys in RFC 8785 order; the shape check has made
// sure every step has exactly these.
var stepKeys = [...]string{"at", "data", "dossier", "hash", "inputsSha256", "kind", "outputsSha256", "prev", "seq", "summary"}

// appendStep writes the step's canonical bytes to the signed bytes and
// returns where its "hash" member is (with the comma before it). A "data"
// or "dossier" longer than strictjson.ShallowOver was read without its
// children: it is canonicalized from its text, a level at a time, and its
// numbers checked against spec §2 on the way (a detail is returned for one
// §2 refuses). An object without members is written the same way: it is
// either such a value or "{}".
func (w *stepWalker) appendStep(st *strictjson.Value) (from, to int, detail string) {
	b := &w.signed
	b.B = append(b.B, '{')
	for k, key := range stepKeys {
		if k > 0 {
			b.B = append(b.B, ',')
		}
		switch key {
		case "hash":
			from = len(b.B) - 1
		case "inputsSha256":
			to = len(b.B) - 1
		}
		b.AppendString(key)
		b.B = append(b.B, ':')
		v := st.Get(key)
		var err error
		if v.Kind == strictjson.Object && len(v.Members) == 0 && (key == "data" || key == "dossier") {
			err = b.AppendText(w.data[v.Start:v.End], strictjson.Options{MaxDepth: format.MaxDepth, Depth: 3}, func(lit string) error {
				if p := shape.NumberProblem(lit); p != "" {
					return errors.New(p)
				}
				return nil
			})
		} else {
			err = b.Append(v)
		}
		if err != nil {
			return 0, 0, "/" + key + ": " + err.Error()
		}
	}
	b.B = append(b.B, '}')
	return from, to, ""
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

func refuse(code format.Code, detail string) Result {
	var r Result
	r.Refuse(format.Refuse(code, detail))
	return r
}

// checkSignature is spec §7 steps 7 and 8, over the signed bytes.
// check verifies the signature (RFC 8032, as crypto/ed25519.Verify) over
// the signed bytes and returns the record id over them.
func checkSignature(p Parts, nSteps int, opt Options, check func(pub, sig []byte) (ok bool, recordID string)) Result {
	spki, sigBytes, ok := spkiAndSig(p)
	if !ok {
		return refuse(format.SignatureInvalid, "undecodable hex") // the schema makes this unreachable
	}
	pub := ed25519.PublicKey(spki[len(spki)-ed25519.PublicKeySize:])
	if d := WeakKey(pub); d != "" {
		return refuse(format.SignatureInvalid, d)
	}
	verified, id := check(pub, sigBytes)
	if !verified {
		return refuse(format.SignatureInvalid, "the Ed25519 signature does not verify over the signed bytes")
	}
	res := Result{
		OK:        true,
		Detail:    "signature verifies",
		RecordID:  id,
		KeyID:     KeyID(spki),
		StepCount: int64(nSteps),
		Facts:     factsOf(p, pub, sigBytes),
	}
	for _, k := range opt.Revoked {
		if bytes.Equal(k, pub) {
			res.Refuse(format.Refuse(format.KeyRevoked, "the signature is sound, but the key "+res.KeyID+" has been revoked"))
			return res
		}
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
	res.Refuse(format.Refuse(format.SignerNotTrusted, "the signature is sound, but the key "+res.KeyID+" is not among the pinned keys"))
	return res
}

// factsOf decodes what step 8 reads; the shape check has made sure the
// hex decodes and the members have their types.
func factsOf(p Parts, pub ed25519.PublicKey, sig []byte) *Facts {
	f := &Facts{PublicKey: pub, Signature: sig}
	if tok, ok := p.Signature.GetString("rfc3161"); ok {
		f.RFC3161, _ = hex.DecodeString(tok)
	}
	if certs := p.SignerIdentity.Get("certificates"); certs != nil {
		for i := range certs.Items {
			der, _ := hex.DecodeString(certs.Items[i].Str)
			f.Certificates = append(f.Certificates, der)
		}
	}
	f.EndedAt, _ = p.Session.GetString("endedAt")
	f.SessionID, _ = p.Session.GetString("id")
	if r := p.Session.Get("recorder"); r != nil {
		f.Recorder = &format.Recorder{}
		f.Recorder.Name, _ = r.GetString("name")
		f.Recorder.Version, _ = r.GetString("version")
		f.Recorder.SHA256, _ = r.GetString("sha256")
	}
	return f
}

// WeakKey returns why an Ed25519 public key must not be trusted to verify
// anything, or "" for a sound key (spec §7 step 7): not a curve point, a
// non-canonical encoding, or a point of small order (a torsion point, under
// which universal forgeries verify).
func WeakKey(pub []byte) string { return edkey.Weak(pub) }

// SelfCheck is Verify with no policy, as an error: what a sealer runs on
// the record it has just made (seal.Options.Check).
func SelfCheck(rec []byte) error {
	v := Verify(rec, Options{})
	return v.Err()
}
