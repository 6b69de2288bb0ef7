package record_test

import (
	"crypto/ed25519"
	"encoding/asn1"
	"encoding/hex"
	"math/big"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
	"github.com/logbook-project/logbook/internal/testkit/testpki"
	"github.com/logbook-project/logbook/internal/tsa"
)

// Policy fixtures (spec §7 step 8 beyond the pinned key) live in
// testdata/records/policy/, each with its verify options in
// testdata/records/policy/options/NAME (the logbook-verify flags, as JSON:
// see fixtureOptions). Their certificates, trusted-identity lists and
// attestations are generated too, under testdata/pki/ and
// testdata/records/policy/attestations/. Every date is fixed: tokens are
// judged at their own time and identities at the signing time, so the
// fixtures do not age.

const policyDir = "records/policy" // relative to testdata/

var (
	pkiFrom   = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pkiUntil  = time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	tokenTime = time.Date(2026, 3, 1, 10, 0, 11, 0, time.UTC) // one second after the records' endedAt
	observed  = "2026-03-01T10:05:00Z"
)

// fixturePKI is the fixtures' authorities and certificates.
type fixturePKI struct {
	tsaRoot, tsa, tsaExpired, tsaNoncritical          *testpki.Cert
	idRoot, idCA, leaf, stranger, noNames, shortLived *testpki.Cert
	unrelatedRoot, unrelatedLeaf, selfRoot, selfLeaf  *testpki.Cert
}

func newFixturePKI() fixturePKI {
	var p fixturePKI
	spec := func(name string, ca bool) testpki.Spec {
		return testpki.Spec{Name: name, CA: ca, NotBefore: pkiFrom, NotAfter: pkiUntil}
	}
	tsaSpec := func(name string) testpki.Spec {
		s := spec(name, false)
		s.EKU, s.EKUCritical = []asn1.ObjectIdentifier{testpki.OIDTimeStamping}, true
		return s
	}
	p.tsaRoot = testpki.Issue(nil, spec("logbook fixture TSA root", true))
	p.tsa = testpki.Issue(p.tsaRoot, tsaSpec("logbook fixture TSA"))
	s := tsaSpec("logbook fixture TSA, expired")
	s.NotAfter = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC) // valid at the token's time, long expired now
	p.tsaExpired = testpki.Issue(p.tsaRoot, s)
	s = tsaSpec("logbook fixture TSA, EKU not critical")
	s.EKUCritical = false
	p.tsaNoncritical = testpki.Issue(p.tsaRoot, s)

	p.idRoot = testpki.Issue(nil, spec("logbook fixture identity root", true))
	p.idCA = testpki.Issue(p.idRoot, spec("logbook fixture identity CA", true))
	leaf := spec("dev", false)
	leaf.Key = fixtureKey("fixture")
	leaf.Emails, leaf.URIs = []string{"dev@example.com"}, []string{"https://ci.example.com/logbook"}
	p.leaf = testpki.Issue(p.idCA, leaf)
	st := leaf
	st.Name, st.Key = "stranger", nil // same names, its own key
	p.stranger = testpki.Issue(p.idCA, st)
	nn := spec("no names", false)
	nn.Key = fixtureKey("fixture")
	p.noNames = testpki.Issue(p.idCA, nn)
	sl := leaf
	sl.Name = "dev, short-lived"
	sl.NotBefore, sl.NotAfter = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 10, 0, 10, 0, time.UTC)
	p.shortLived = testpki.Issue(p.idCA, sl)

	p.unrelatedRoot = testpki.Issue(nil, spec("logbook fixture unrelated root", true))
	p.unrelatedLeaf = testpki.Issue(p.unrelatedRoot, leaf)
	p.selfRoot = testpki.Issue(nil, spec("root made by the signer", true))
	p.selfLeaf = testpki.Issue(p.selfRoot, leaf)
	return p
}

func ders(cs ...*testpki.Cert) [][]byte {
	var out [][]byte
	for _, c := range cs {
		out = append(out, c.DER())
	}
	return out
}

// assembleWith seals baseSteps with a recorder and extras.
func assembleWith(priv ed25519.PrivateKey, rec *format.Recorder, x record.Extras) []byte {
	steps := baseSteps()
	sess := record.Session{ID: "fixture-session", Agent: "claude-code (claude-opus-4-7)", Goal: "make the tests pass", Cwd: "/home/dev/project",
		StartedAt: steps[0].At, EndedAt: steps[len(steps)-1].At, Recorder: rec}
	js, n, tip := linkJSON(steps)
	out, err := record.AssembleWith(sess, js, n, tip, priv, x)
	if err != nil {
		panic(err)
	}
	return out
}

func sigOf(rec []byte) []byte {
	v, err := strictjson.Parse(rec, strictjson.Options{})
	if err != nil {
		panic(err)
	}
	s, _ := v.Get("signature").GetString("value")
	b, _ := hex.DecodeString(s)
	return b
}

// stamped adds a token to a record (outside the signed payload: no
// re-signing).
func stamped(rec []byte, token []byte) []byte {
	return must(tamper.Apply(rec, withRFC3161(hex.EncodeToString(token))))
}

func (p fixturePKI) token(signer *testpki.Cert, over []byte, edit func(*testpki.TokenSpec)) []byte {
	s := testpki.TokenSpec{TSA: signer, Imprint: tsa.Imprint(sigOf(over)), Time: tokenTime, Nonce: big.NewInt(42), Serial: 1}
	if edit != nil {
		edit(&s)
	}
	return testpki.Token(s)
}

func idsOf(rec []byte) (recordID, keyID string) {
	r := record.Verify(rec, record.Options{})
	if !r.OK {
		panic("fixture record does not verify: " + r.Detail)
	}
	return r.RecordID, r.KeyID
}

func attestation(rec []byte, typ string, recorder *format.Recorder, priv ed25519.PrivateKey, edit func(*attest.Statement)) []byte {
	id, key := idsOf(rec)
	s := attest.Statement{Type: typ, RecordID: id, KeyID: key, ObservedAt: observed, Recorder: recorder}
	if typ == attest.Witness {
		s.Nonce = "fixture-witness-nonce"
	}
	if edit != nil {
		edit(&s)
	}
	return must(attest.Sign(s, priv))
}

// options is a fixture's logbook-verify flags, as JSON. Paths are
// relative to testdata/.
type options struct {
	pubkey, revoked                            []string
	tsaRoots, identityRoots, trustedIdentities string
	attestation, attestorKey                   []string
	checkpoint, checkpointKey                  []string // checkpointfixtures_test.go
	logPolicy, logProof                        string   // logfixtures_test.go
	requireManaged, requireAttested            bool     // checkpointfixtures_test.go
}

func (o options) json() []byte {
	v := strictjson.Obj()
	add := func(k string, val strictjson.Value) {
		v.Members = append(v.Members, strictjson.Member{Key: k, Value: val})
	}
	if o.attestation != nil {
		add("attestation", strictjson.StrArr(o.attestation))
	}
	if o.attestorKey != nil {
		add("attestorKey", strictjson.StrArr(o.attestorKey))
	}
	if o.checkpoint != nil {
		add("checkpoint", strictjson.StrArr(o.checkpoint))
	}
	if o.checkpointKey != nil {
		add("checkpointKey", strictjson.StrArr(o.checkpointKey))
	}
	if o.identityRoots != "" {
		add("identityRoots", strictjson.Str(o.identityRoots))
	}
	if o.logPolicy != "" {
		add("logPolicy", strictjson.Str(o.logPolicy))
	}
	if o.requireAttested {
		add("requireAttested", strictjson.Bool(true))
	}
	if o.requireManaged {
		add("requireManaged", strictjson.Bool(true))
	}
	if o.logProof != "" {
		add("logProof", strictjson.Str(o.logProof))
	}
	if o.pubkey != nil {
		add("pubkey", strictjson.StrArr(o.pubkey))
	}
	if o.revoked != nil {
		add("revoked", strictjson.StrArr(o.revoked))
	}
	if o.trustedIdentities != "" {
		add("trustedIdentities", strictjson.Str(o.trustedIdentities))
	}
	if o.tsaRoots != "" {
		add("tsaRoots", strictjson.Str(o.tsaRoots))
	}
	out, err := jcs.Append(nil, &v)
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

const (
	tsaRootsPEM      = "pki/tsa-roots.pem"
	identityRootsPEM = "pki/identity-roots.pem"
	unrelatedPEM     = "pki/unrelated-roots.pem"
	trustedJSON      = "pki/trusted-identities.json"
	trustedOther     = "pki/trusted-identities-other.json"
	witnessPub       = "keys/witness.key.pub"
	builderPub       = "keys/builder.key.pub"
	otherPub         = "keys/other.key.pub"
)

// recorderOfFixtures is the session.recorder of the fixtures that have one.
var recorderOfFixtures = &format.Recorder{Name: "record-step", Version: "v0.7.0", SHA256: sum("record-step v0.7.0 binary")}

// policyFixtures returns every file of the policy fixtures, by path
// relative to testdata/: records, their options, attestations and PKI.
func policyFixtures() map[string][]byte {
	pk, other := fixtureKey("fixture"), fixtureKey("other")
	witness, builder := fixtureKey("witness"), fixtureKey("builder")
	p := newFixturePKI()
	files := map[string][]byte{
		tsaRootsPEM:      p.tsaRoot.PEM(),
		identityRootsPEM: p.idRoot.PEM(),
		unrelatedPEM:     p.unrelatedRoot.PEM(),
		trustedJSON:      []byte(`["ops@example.com", "https://ci.example.com/logbook"]` + "\n"),
		trustedOther:     []byte(`["someone-else@example.com"]` + "\n"),
		// For trying --cert-chain by hand: the fixture key's certificate and its CA.
		"pki/identity-chain.pem": testpki.PEMs(p.leaf, p.idCA),
	}
	good := assemble(baseSteps(), pk)
	ident := assembleWith(pk, nil, record.Extras{Certificates: ders(p.leaf, p.idCA)})
	short := assembleWith(pk, nil, record.Extras{Certificates: ders(p.shortLived, p.idCA)})
	withRec := assembleWith(pk, recorderOfFixtures, record.Extras{})
	otherBinary := *recorderOfFixtures
	otherBinary.SHA256 = sum("a patched record-step")

	ts := options{tsaRoots: tsaRootsPEM}
	id := options{identityRoots: identityRootsPEM, trustedIdentities: trustedJSON}
	idTS := options{identityRoots: identityRootsPEM, trustedIdentities: trustedJSON, tsaRoots: tsaRootsPEM}
	attestOpt := func(names []string, keys ...string) options {
		var paths []string
		for _, n := range names {
			paths = append(paths, policyDir+"/attestations/"+n)
		}
		return options{attestation: paths, attestorKey: keys}
	}
	atts := map[string][]byte{
		"witness.dsse.json":                 attestation(good, attest.Witness, nil, witness, nil),
		"witness-of-recorded.dsse.json":     attestation(withRec, attest.Witness, nil, witness, nil),
		"recorder.dsse.json":                attestation(withRec, attest.Recorder, recorderOfFixtures, builder, nil),
		"recorder-other-binary.dsse.json":   attestation(withRec, attest.Recorder, &otherBinary, builder, nil),
		"recorder-for-unrecorded.dsse.json": attestation(good, attest.Recorder, recorderOfFixtures, builder, nil),
		"witness-other-key.dsse.json": attestation(good, attest.Witness, nil, witness, func(s *attest.Statement) {
			s.KeyID = attest.KeyID(other.Public().(ed25519.PublicKey))
		}),
		"recorder-other-key.dsse.json": attestation(withRec, attest.Recorder, &otherBinary, builder, func(s *attest.Statement) {
			s.KeyID = attest.KeyID(other.Public().(ed25519.PublicKey)) // the keyId is judged before the recorder
		}),
		"witness-duplicate-key.dsse.json": dupKeyEnvelope(attestation(good, attest.Witness, nil, witness, nil)),
	}
	for name, b := range atts {
		files[policyDir+"/attestations/"+name] = b
	}

	type fixture struct {
		rec []byte
		opt options
	}
	fx := map[string]fixture{
		"good_timestamp_trusted.json":           {stamped(good, p.token(p.tsa, good, nil)), ts},
		"good_timestamp_expired_authority.json": {stamped(good, p.token(p.tsaExpired, good, nil)), ts},
		"good_timestamp_not_asked.json":         {stamped(good, p.token(p.tsaNoncritical, good, nil)), options{}},
		"good_identity.json":                    {ident, id},
		"good_identity_timestamped.json":        {stamped(ident, p.token(p.tsa, ident, nil)), idTS},
		"good_identity_short_lived.json":        {short, id},
		"good_witness.json":                     {good, attestOpt([]string{"witness.dsse.json"}, witnessPub)},
		"good_recorder_and_witness.json": {withRec, attestOpt([]string{"recorder.dsse.json", "witness-of-recorded.dsse.json"},
			witnessPub, builderPub)},

		"fail_TIMESTAMP_MISSING_no_token.json":        {good, ts},
		"fail_TIMESTAMP_MISSING_identity_passes.json": {ident, idTS},
		"fail_TIMESTAMP_INVALID_flipped_byte.json":    {stamped(good, flipByte(p.token(p.tsa, good, nil), 3)), ts},
		"fail_TIMESTAMP_INVALID_other_data.json": {stamped(good, p.token(p.tsa, good, func(s *testpki.TokenSpec) {
			s.Imprint = tsa.Imprint([]byte("other data"))
		})), ts},
		"fail_TIMESTAMP_INVALID_token_of_another_record.json": {stamped(good, p.token(p.tsa, ident, nil)), ts},
		"fail_TIMESTAMP_INVALID_eku_not_critical.json":        {stamped(good, p.token(p.tsaNoncritical, good, nil)), ts},
		"fail_TIMESTAMP_INVALID_roots_do_not_match.json":      {stamped(good, p.token(p.tsa, good, nil)), options{tsaRoots: unrelatedPEM}},
		"fail_TIMESTAMP_INVALID_no_certificate.json": {stamped(good, p.token(p.tsa, good, func(s *testpki.TokenSpec) {
			s.NoCerts = true
		})), ts},
		"fail_TIMESTAMP_INVALID_not_a_token.json": {must(tamper.Apply(good, withRFC3161("3003020101"))), ts},

		// A revoked signer is refused even when pinned, and even when
		// nothing is pinned (--revoked alone).
		"fail_KEY_REVOKED_pinned_too.json": {good, options{pubkey: []string{"keys/fixture.key.pub"}, revoked: []string{"keys/fixture.key.pub"}}},
		"fail_KEY_REVOKED_nothing_pinned.json": {must(tamper.Apply(good, tamper.Resign(other))),
			options{pubkey: []string{}, revoked: []string{otherPub}}},
		"good_revoked_other_key.json": {good, options{revoked: []string{otherPub}}},

		"fail_IDENTITY_KEY_MISMATCH_stranger_leaf.json": {assembleWith(pk, nil, record.Extras{Certificates: ders(p.stranger, p.idCA)}), id},
		"fail_IDENTITY_KEY_MISMATCH_resigned.json": {must(tamper.Apply(ident, tamper.SetSession("goal", "rewritten"), tamper.Resign(other))),
			options{pubkey: []string{otherPub}, identityRoots: identityRootsPEM, trustedIdentities: trustedJSON}},
		"fail_IDENTITY_UNTRUSTED_other_root.json":            {assembleWith(pk, nil, record.Extras{Certificates: ders(p.unrelatedLeaf, p.unrelatedRoot)}), id},
		"fail_IDENTITY_UNTRUSTED_root_only_in_record.json":   {assembleWith(pk, nil, record.Extras{Certificates: ders(p.selfLeaf, p.selfRoot)}), id},
		"fail_IDENTITY_UNTRUSTED_no_signer_identity.json":    {good, idTS}, // identity is judged before the missing token
		"fail_IDENTITY_UNTRUSTED_expired_at_token_time.json": {stamped(short, p.token(p.tsa, short, nil)), idTS},
		"fail_IDENTITY_NOT_ALLOWED_not_listed.json": {ident,
			options{identityRoots: identityRootsPEM, trustedIdentities: trustedOther}},
		"fail_IDENTITY_NOT_ALLOWED_no_names.json": {assembleWith(pk, nil, record.Extras{Certificates: ders(p.noNames, p.idCA)}), id},

		"fail_ATTEST_INVALID_unpinned_attestor.json": {good, attestOpt([]string{"witness.dsse.json"}, builderPub)},
		"fail_ATTEST_INVALID_another_record.json":    {good, attestOpt([]string{"witness-of-recorded.dsse.json"}, witnessPub)},
		"fail_ATTEST_INVALID_duplicate_key.json":     {good, attestOpt([]string{"witness-duplicate-key.dsse.json"}, witnessPub)},
		"fail_ATTEST_KEYID_MISMATCH_witness.json":    {good, attestOpt([]string{"witness-other-key.dsse.json"}, witnessPub)},
		"fail_ATTEST_KEYID_MISMATCH_recorder.json":   {withRec, attestOpt([]string{"recorder-other-key.dsse.json"}, builderPub)},
		"fail_RECORDER_DIGEST_MISMATCH_other_binary.json": {withRec,
			attestOpt([]string{"witness-of-recorded.dsse.json", "recorder-other-binary.dsse.json"}, witnessPub, builderPub)},
		"fail_RECORDER_DIGEST_MISMATCH_no_recorder.json": {good, attestOpt([]string{"recorder-for-unrecorded.dsse.json"}, builderPub)},
	}
	for name, f := range fx {
		files[policyDir+"/"+name] = f.rec
		if o := f.opt.json(); string(o) != "{}\n" {
			files[policyDir+"/options/"+name] = o
		}
	}
	return files
}

// flipByte flips one bit of the byte n from the end: inside the token's
// signature value, so the DER stays well-formed.
func flipByte(b []byte, n int) []byte {
	out := append([]byte(nil), b...)
	out[len(out)-n] ^= 0x01
	return out
}

// dupKeyEnvelope names payloadType twice: encoding/json would keep the
// last one; the strict reader refuses the file.
func dupKeyEnvelope(env []byte) []byte {
	return []byte(strings.Replace(string(env), `"payloadType":`, `"payloadType":"text/plain","payloadType":`, 1))
}
