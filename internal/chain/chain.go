// Package chain builds steps and links them into the hash chain of spec §5:
// step.hash = sha256(canonicalize(step without "hash")), step.prev = the
// previous step's hash (null for the first step). It is small on purpose:
// record-step links it on every tool call.
package chain

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strings"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// EmptyTip is the chain tip of a record with no steps: sha256("") (spec §5).
const EmptyTip = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Step is a step before it is linked: everything but seq, prev and hash.
type Step struct {
	At      string           // RFC 3339 UTC instant (spec §4)
	Kind    string           // one of format.Kinds (spec §4)
	Summary string           // short redacted clear text
	Data    strictjson.Value // object of redacted metadata
	Inputs  []string         // hex SHA-256 digests of input bodies
	Outputs []string         // hex SHA-256 digests of output bodies
}

// Link returns the step as it stands in a record at position seq after a
// step whose hash is prev ("" for none), its canonical bytes (RFC 8785,
// including "hash"), and its hash. It fails only when Data holds a value
// with no canonical form.
func Link(s Step, seq int64, prev string) (canonical []byte, hash string, err error) {
	data := s.Data
	if data.Kind != strictjson.Object {
		data = strictjson.Obj()
	}
	prevV := strictjson.NullValue()
	if prev != "" {
		prevV = strictjson.Str(prev)
	}
	// Members already in RFC 8785 order: the canonical writer skips its
	// sort. "hash" holds a placeholder of the right length; the hash does
	// not cover it, so the step is written once and the hash copied in.
	v := strictjson.Obj(
		strictjson.Member{Key: "at", Value: strictjson.Str(s.At)},
		strictjson.Member{Key: "data", Value: data},
		strictjson.Member{Key: "dossier", Value: strictjson.NullValue()},
		strictjson.Member{Key: "hash", Value: strictjson.Str(hashPlaceholder)},
		strictjson.Member{Key: "inputsSha256", Value: strictjson.StrArr(nonNil(s.Inputs))},
		strictjson.Member{Key: "kind", Value: strictjson.Str(s.Kind)},
		strictjson.Member{Key: "outputsSha256", Value: strictjson.StrArr(nonNil(s.Outputs))},
		strictjson.Member{Key: "prev", Value: prevV},
		strictjson.Member{Key: "seq", Value: strictjson.Int(seq)},
		strictjson.Member{Key: "summary", Value: strictjson.Str(s.Summary)},
	)
	var b jcs.Buffer
	from, to, err := b.AppendCut(&v, "hash")
	if err != nil {
		return nil, "", err
	}
	var h [64]byte
	HashCut(sha256.New(), b.B, from, to, &h)
	// "hash" is never the first member ("at" sorts before it), so its
	// value's 64 characters end just before the closing quote at to-1.
	copy(b.B[to-1-64:to-1], h[:])
	return b.B, string(h[:]), nil
}

var hashPlaceholder = strings.Repeat("x", 64)

// Hash returns the hex SHA-256 of the canonical form of the step object v
// without its "hash" member (spec §5).
func Hash(v *strictjson.Value) (string, error) {
	_, h, err := Canonical(nil, v)
	return h, err
}

// Canonical appends the RFC 8785 form of the step v (its "hash" member
// included, as it stands) to dst, and returns the hash the step should
// have: the SHA-256 of those bytes without the "hash" member. One pass
// serves both the chain check and the record or signed bytes.
func Canonical(dst []byte, v *strictjson.Value) ([]byte, string, error) {
	var c Canonicalizer
	c.B = dst
	var h [64]byte
	err := c.Append(v, &h)
	return c.B, string(h[:]), err
}

// Canonicalizer is Canonical with its buffer and hash state kept across
// calls: a verifier walking 100,000 steps allocates nothing per step.
type Canonicalizer struct {
	jcs.Buffer // the output; callers may append separators to B
	h          hash.Hash
}

// Append appends the step's canonical bytes to c.B and writes the hex of
// its recomputed hash into *out.
func (c *Canonicalizer) Append(v *strictjson.Value, out *[64]byte) error {
	if c.h == nil {
		c.h = sha256.New()
	}
	start := len(c.B)
	from, to, err := c.AppendCut(v, "hash")
	if err != nil {
		return err
	}
	HashCut(c.h, c.B[start:], from-start, to-start, out)
	return nil
}

// HashCut writes into *out the hex SHA-256 of step, a step's canonical
// bytes, without the bytes [from, to) that hold its "hash" member (as
// jcs.AppendCut reports them, relative to step; from < 0 when there is no
// such member). h is reset and reused.
func HashCut(h hash.Hash, step []byte, from, to int, out *[64]byte) {
	h.Reset()
	if from < 0 {
		h.Write(step)
	} else {
		h.Write(step[:from])
		h.Write(step[to:])
	}
	var sum [sha256.Size]byte
	hex.Encode(out[:], h.Sum(sum[:0]))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
