package logproof

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	flog "github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/logbook-project/logbook/internal/format"
)

// Refusal codes of step 10 (docs/log.md, an addition to spec §7), in the
// order a verifier reports them.
const (
	ProofInvalid = string(format.LogProofInvalid) // malformed, or the leaf is not in the tree the checkpoint states
	Untrusted    = string(format.LogUntrusted)    // no log key of the policy signed the checkpoint
	Quorum       = string(format.WitnessQuorum)   // the cosignatures do not meet the policy's quorum
)

// LevelLogged is the assurance level of a record whose session checkpoint
// is proved logged under a policy whose quorum holds.
const LevelLogged = "logged"

// Result is what Check found: a code ("" when the proof holds) and, as far
// as it could read them, the proof's facts.
type Result struct {
	Code, Detail string
	Leaf         []byte // the proof's extra: the logged session checkpoint
	Index        int64
	Origin       string // the log's
	Size         int64  // the log checkpoint's tree size
	Cosigned     []string
}

// Tree is a parsed log checkpoint text (C2SP tlog-checkpoint).
type Tree struct {
	Origin string
	Size   int64
	Root   tlog.Hash
}

// ParseTree reads the text of a signed log checkpoint without checking any
// signature: origin, size and root hash, then any extension lines.
func ParseTree(signed []byte) (Tree, error) {
	text, _, ok := bytes.Cut(signed, []byte("\n\n"))
	if !ok {
		return Tree{}, errors.New("the checkpoint is not a signed note")
	}
	var c flog.Checkpoint
	if _, err := c.Unmarshal(append(text, '\n')); err != nil {
		return Tree{}, err
	}
	if len(c.Hash) != tlog.HashSize || c.Size > 1<<62 {
		return Tree{}, fmt.Errorf("checkpoint root of %d bytes or size %d", len(c.Hash), c.Size)
	}
	t := Tree{Origin: c.Origin, Size: int64(c.Size)}
	copy(t.Root[:], c.Hash)
	return t, nil
}

// Check verifies a proof against a policy. In order, first failure wins:
// LOG_PROOF_INVALID (malformed, no leaf in extra, index beyond the tree,
// or the inclusion proof does not lead from the leaf to the checkpoint's
// root); LOG_UNTRUSTED (no log key of the policy, for the checkpoint's
// origin, signed it); WITNESS_QUORUM (the witnesses whose cosignature
// verifies do not meet the quorum).
func Check(data []byte, pol *Policy) Result {
	p, err := Parse(data)
	if err != nil {
		return Result{Code: ProofInvalid, Detail: err.Error()}
	}
	r := Result{Leaf: p.Extra, Index: p.Index}
	if len(p.Extra) == 0 {
		r.Code, r.Detail = ProofInvalid, "no extra line: a logbook proof carries its leaf, the session checkpoint"
		return r
	}
	t, err := ParseTree(p.Checkpoint)
	if err != nil {
		r.Code, r.Detail = ProofInvalid, "log checkpoint: "+err.Error()
		return r
	}
	r.Origin, r.Size = t.Origin, t.Size
	if p.Index >= t.Size {
		r.Code, r.Detail = ProofInvalid, fmt.Sprintf("index %d is beyond the tree of %d leaves", p.Index, t.Size)
		return r
	}
	if err := tlog.CheckRecord(p.Hashes, t.Size, t.Root, p.Index, LeafHash(p.Extra)); err != nil {
		r.Code, r.Detail = ProofInvalid, fmt.Sprintf("leaf %d is not in the tree of %d leaves: %v", p.Index, t.Size, err)
		return r
	}
	if err := pol.OpenLog(p.Checkpoint, t.Origin); err != nil {
		r.Code, r.Detail = Untrusted, err.Error()
		return r
	}
	cos := pol.Cosigned(p.Checkpoint)
	for n := range cos {
		r.Cosigned = append(r.Cosigned, n)
	}
	sort.Strings(r.Cosigned)
	if !pol.Quorum(cos) {
		r.Code, r.Detail = Quorum, fmt.Sprintf("cosigned by %d witness(es) %v: the policy's quorum is not met", len(r.Cosigned), r.Cosigned)
	}
	return r
}

// OpenLog checks that a log key of the policy whose name is origin signed
// the checkpoint.
func (p *Policy) OpenLog(signed []byte, origin string) error {
	var vs []note.Verifier
	for _, l := range p.Logs {
		if l.Verifier.Name() == origin {
			vs = append(vs, l.Verifier)
		}
	}
	if len(vs) == 0 {
		return fmt.Errorf("the policy trusts no log named %q", origin)
	}
	if _, err := note.Open(signed, note.VerifierList(vs...)); err != nil {
		return fmt.Errorf("log checkpoint of %q: %v", origin, err)
	}
	return nil
}

// Consistent checks that the tree of signed checkpoint newer extends the
// tree of older: both signed by a log key of the policy, same origin,
// older no larger, and proof a valid RFC 6962 consistency proof between
// them. Codes: LOG_PROOF_INVALID (malformed, or the log rewrote its
// past), LOG_UNTRUSTED (a checkpoint not signed by a trusted log key).
func Consistent(older, newer []byte, proof []tlog.Hash, pol *Policy) (code, detail string) {
	a, err := ParseTree(older)
	if err != nil {
		return ProofInvalid, "old checkpoint: " + err.Error()
	}
	b, err := ParseTree(newer)
	if err != nil {
		return ProofInvalid, "new checkpoint: " + err.Error()
	}
	if a.Origin != b.Origin {
		return ProofInvalid, fmt.Sprintf("the checkpoints are of two logs, %q and %q", a.Origin, b.Origin)
	}
	if a.Size > b.Size {
		return ProofInvalid, fmt.Sprintf("the old checkpoint (%d leaves) is larger than the new (%d)", a.Size, b.Size)
	}
	var bad string
	if a.Size == b.Size && a.Root != b.Root || a.Size == 0 && a.Root != tlog.Hash(emptyRoot) {
		bad = fmt.Sprintf("two different roots for the tree of %d leaves: the log rewrote its past", a.Size)
	} else if a.Size > 0 && a.Size < b.Size {
		if err := tlog.CheckTree(proof, b.Size, b.Root, a.Size, a.Root); err != nil {
			bad = fmt.Sprintf("the tree of %d leaves does not extend the tree of %d: the log rewrote its past (%v)", b.Size, a.Size, err)
		}
	}
	if bad != "" {
		return ProofInvalid, bad
	}
	for _, c := range [][]byte{older, newer} {
		if err := pol.OpenLog(c, a.Origin); err != nil {
			return Untrusted, err.Error()
		}
	}
	return "", fmt.Sprintf("the tree of %d leaves extends the tree of %d", b.Size, a.Size)
}

// emptyRoot is SHA-256 of no bytes, the root of the empty tree (RFC 6962).
var emptyRoot = [32]byte{0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
	0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55}
