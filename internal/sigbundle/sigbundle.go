// Package sigbundle makes and reads a sealed session's attestation in the
// shape the supply-chain tools read (docs/attestation.md): an in-toto
// Statement v1 whose subjects are the commits the session made (gitCommit
// digests) and the record file (sha256), with logbook's session predicate
// (PredicateType), in a DSSE envelope signed with Ed25519, packed as a
// Sigstore bundle v0.3 whose verification material is a public-key hint.
// cosign verify-blob-attestation --key and sigstore-go's verifier accept
// it (tools/sigstore-check shows both, built from their modules).
//
// Every byte that is signed is written by the project's own canonical
// writer (internal/jcs, RFC 8785), never encoding/json; a bundle is read
// back with the strict reader (internal/strictjson), which refuses a
// duplicate key or a member it does not know.
package sigbundle

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// The names the bundle's shape is made of.
const (
	// MediaType is the Sigstore bundle's, version 0.3.
	MediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// PayloadType is the DSSE payloadType of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// StatementType is the in-toto Statement's _type, version 1.
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType names logbook's session predicate, version 1: a new
	// version is a new URI, never a change to this one's meaning.
	PredicateType = "https://logbook-project.dev/attestation/session/v1"
	// RecordSubjectPrefix starts the record subject's name; the recordId
	// follows.
	RecordSubjectPrefix = "logbook-record:"
	// CommitSubjectPrefix starts a commit subject's name; its id follows.
	CommitSubjectPrefix = "git-commit:"
)

// MaxSize bounds a bundle file (internal/readlimit's, the one home of
// the limits).
const MaxSize = readlimit.AttestationBundle

// Facts are what the predicate and the subjects say about one sealed
// session: the record's own (checked by its signature), and what the
// attestor's verification found (Level, Policies, LogProof).
type Facts struct {
	RecordSHA256 string // SHA-256 of the record file's bytes, hex
	RecordID     string // spec §6
	SessionID    string
	KeyID        string // the record's signer (spec §6 keyId)
	StepCount    int64
	ChainTip     string   // the last step's hash (spec §5)
	Level        string   // local, server or logged
	Policies     []string // the policy digests the gate steps name; nil none checked
	Commits      []string // the logbook.commit steps' commit ids, in step order, each once
	LogProof     *LogProof
}

// LogProof is the proof of logging of the session's final checkpoint
// (docs/log.md): the one entry of the session in the transparency log.
type LogProof struct {
	Origin   string // the log's
	Index    int64  // the leaf's index
	TreeSize int64  // the log checkpoint's size
	Proof    string // the C2SP tlog-proof@v1 text, checkable on its own
}

// Hint is the Sigstore bundle's publicKey hint for pub, as cosign writes
// it: standard base64 of SHA-256 of the key's SPKI DER. It is not signed:
// a verifier looks its pinned key up by it, and trusts only the key.
func Hint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(record.SPKI(pub))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// RecordDigest is the record subject's digest of the file's bytes.
func RecordDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Statement returns the in-toto statement of f, signed by attestorKeyID,
// in canonical form: the DSSE payload.
func Statement(f Facts, attestorKeyID string) ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	subjects := []strictjson.Value{strictjson.Obj(
		strictjson.Member{Key: "name", Value: strictjson.Str(RecordSubjectPrefix + f.RecordID)},
		strictjson.Member{Key: "digest", Value: strictjson.Obj(strictjson.Member{Key: "sha256", Value: strictjson.Str(f.RecordSHA256)})},
	)}
	for _, c := range f.Commits {
		subjects = append(subjects, strictjson.Obj(
			strictjson.Member{Key: "name", Value: strictjson.Str(CommitSubjectPrefix + c)},
			strictjson.Member{Key: "digest", Value: strictjson.Obj(strictjson.Member{Key: "gitCommit", Value: strictjson.Str(c)})},
		))
	}
	pred := []strictjson.Member{
		{Key: "attestorKeyId", Value: strictjson.Str(attestorKeyID)},
		{Key: "chainTip", Value: strictjson.Str(f.ChainTip)},
		{Key: "keyId", Value: strictjson.Str(f.KeyID)},
		{Key: "level", Value: strictjson.Str(f.Level)},
		{Key: "recordId", Value: strictjson.Str(f.RecordID)},
		{Key: "sessionId", Value: strictjson.Str(f.SessionID)},
		{Key: "stepCount", Value: strictjson.Int(f.StepCount)},
	}
	if f.Policies != nil {
		pred = append(pred, strictjson.Member{Key: "policyDigests", Value: strictjson.StrArr(slices.Clone(f.Policies))})
	}
	if p := f.LogProof; p != nil {
		pred = append(pred, strictjson.Member{Key: "logProof", Value: strictjson.Obj(
			strictjson.Member{Key: "format", Value: strictjson.Str(LogProofFormat)},
			strictjson.Member{Key: "origin", Value: strictjson.Str(p.Origin)},
			strictjson.Member{Key: "index", Value: strictjson.Int(p.Index)},
			strictjson.Member{Key: "treeSize", Value: strictjson.Int(p.TreeSize)},
			strictjson.Member{Key: "proof", Value: strictjson.Str(p.Proof)},
		)})
	}
	st := strictjson.Obj(
		strictjson.Member{Key: "_type", Value: strictjson.Str(StatementType)},
		strictjson.Member{Key: "subject", Value: strictjson.Arr(subjects...)},
		strictjson.Member{Key: "predicateType", Value: strictjson.Str(PredicateType)},
		strictjson.Member{Key: "predicate", Value: strictjson.Obj(pred...)},
	)
	return jcs.Append(nil, &st)
}

// LogProofFormat names the text in logProof.proof.
const LogProofFormat = "c2sp.org/tlog-proof@v1"

// Sign returns the Sigstore bundle of f signed by priv, in canonical JSON
// with a newline.
func Sign(f Facts, priv ed25519.PrivateKey) ([]byte, error) {
	pub := priv.Public().(ed25519.PublicKey)
	body, err := Statement(f, attest.KeyID(pub))
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(priv, attest.PAE(PayloadType, body))
	b := strictjson.Obj(
		strictjson.Member{Key: "mediaType", Value: strictjson.Str(MediaType)},
		strictjson.Member{Key: "verificationMaterial", Value: strictjson.Obj(
			strictjson.Member{Key: "publicKey", Value: strictjson.Obj(strictjson.Member{Key: "hint", Value: strictjson.Str(Hint(pub))})},
		)},
		strictjson.Member{Key: "dsseEnvelope", Value: strictjson.Obj(
			strictjson.Member{Key: "payload", Value: strictjson.Str(base64.StdEncoding.EncodeToString(body))},
			strictjson.Member{Key: "payloadType", Value: strictjson.Str(PayloadType)},
			strictjson.Member{Key: "signatures", Value: strictjson.Arr(strictjson.Obj(
				strictjson.Member{Key: "sig", Value: strictjson.Str(base64.StdEncoding.EncodeToString(sig))},
			))},
		)},
	)
	out, err := jcs.Append(nil, &b)
	return append(out, '\n'), err
}

// check is the shape a statement's facts must have, on writing and on
// reading.
func (f *Facts) check() error {
	switch {
	case !format.Hex64(f.RecordSHA256):
		return errors.New("the record's sha256 is not 64 lowercase hex digits")
	case !format.Hex64(f.RecordID):
		return errors.New("recordId is not 64 lowercase hex digits")
	case !format.Hex64(f.KeyID):
		return errors.New("keyId is not 64 lowercase hex digits")
	case !format.Hex64(f.ChainTip):
		return errors.New("chainTip is not 64 lowercase hex digits")
	case f.SessionID == "":
		return errors.New("sessionId is empty")
	case f.StepCount < 0:
		return errors.New("stepCount is below 0")
	case f.Level != "local" && f.Level != "server" && f.Level != "logged":
		return fmt.Errorf("level %q is not local, server or logged", f.Level)
	case (f.LogProof != nil) != (f.Level == "logged"):
		return errors.New("a logProof is there exactly at level logged")
	}
	seen := map[string]bool{}
	for _, c := range f.Commits {
		if !gitfacts.IsID(c) || seen[c] {
			return fmt.Errorf("commit %q is not a commit id, or is named twice", c)
		}
		seen[c] = true
	}
	if p := f.LogProof; p != nil && (p.Origin == "" || p.Index < 0 || p.TreeSize <= p.Index || p.Proof == "") {
		return errors.New("logProof needs an origin, an index below its treeSize and a proof")
	}
	return nil
}
