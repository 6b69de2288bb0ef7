// Package logproof reads, writes and checks what ties a logbook session to
// the server's transparency log (docs/log.md): the leaf a session
// checkpoint becomes, proofs of logging in the C2SP tlog-proof@v1 format,
// trust policies in the C2SP tlog-policy format, and consistency between
// two log checkpoints. It does no I/O; the Merkle arithmetic is
// golang.org/x/mod/sumdb/tlog's, the notes golang.org/x/mod/sumdb/note's,
// and cosignatures github.com/transparency-dev/formats/note's.
package logproof

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// Header is the first line of every proof.
const Header = "c2sp.org/tlog-proof@v1"

// MaxProof bounds a proof file: 64 hashes, a leaf of at most 16 KiB in
// extra, and a checkpoint with a few dozen cosignatures fit well within.
const MaxProof = 64 << 10

// Proof is a C2SP tlog-proof@v1: the leaf's index, its inclusion proof,
// the log checkpoint (a signed note, cosignatures included) it is proved
// against, and extra data. A logbook proof carries the leaf itself, the
// signed session checkpoint, in Extra, so that it checks on its own.
type Proof struct {
	Extra      []byte
	Index      int64
	Hashes     []tlog.Hash // from the leaf's sibling up to the root's child
	Checkpoint []byte      // verbatim, per C2SP tlog-checkpoint
}

// ErrMalformed is wrapped by every error Parse returns.
var ErrMalformed = errors.New("malformed tlog-proof")

// Format writes the proof.
func (p *Proof) Format() []byte {
	var b bytes.Buffer
	b.WriteString(Header + "\n")
	if p.Extra != nil {
		b.WriteString("extra " + base64.StdEncoding.EncodeToString(p.Extra) + "\n")
	}
	b.WriteString("index " + strconv.FormatInt(p.Index, 10) + "\n")
	for _, h := range p.Hashes {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]) + "\n")
	}
	b.WriteString("\n")
	b.Write(p.Checkpoint)
	return b.Bytes()
}

// Parse reads a proof strictly: the header, an optional extra line, the
// index (decimal, no leading zero), 0-63 hash lines of 32 bytes in
// canonical base64, an empty line, and a checkpoint.
func Parse(data []byte) (*Proof, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
	}
	if len(data) > MaxProof {
		return nil, bad("over %d bytes", MaxProof)
	}
	head, cp, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		return nil, bad("no empty line before the checkpoint")
	}
	if len(cp) == 0 {
		return nil, bad("no checkpoint")
	}
	lines := strings.Split(string(head), "\n")
	if lines[0] != Header {
		return nil, bad("first line %q, want %q", lines[0], Header)
	}
	lines = lines[1:]
	p := &Proof{Checkpoint: cp}
	if len(lines) > 0 && strings.HasPrefix(lines[0], "extra ") {
		e, err := base64.StdEncoding.Strict().DecodeString(strings.TrimPrefix(lines[0], "extra "))
		if err != nil {
			return nil, bad("extra: %v", err)
		}
		p.Extra, lines = e, lines[1:]
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "index ") {
		return nil, bad("no index line")
	}
	v := strings.TrimPrefix(lines[0], "index ")
	if v == "" || len(v) > 19 || strings.Trim(v, "0123456789") != "" || (v[0] == '0' && v != "0") {
		return nil, bad("index %q: want a decimal without leading zeroes", v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, bad("index %q: %v", v, err)
	}
	p.Index = n
	if len(lines)-1 > 63 {
		return nil, bad("%d proof hashes: at most 63", len(lines)-1)
	}
	for _, l := range lines[1:] {
		raw, err := base64.StdEncoding.Strict().DecodeString(l)
		if err != nil || len(raw) != tlog.HashSize || base64.StdEncoding.EncodeToString(raw) != l {
			return nil, bad("proof line %q: want 32 bytes in base64", l)
		}
		var h tlog.Hash
		copy(h[:], raw)
		p.Hashes = append(p.Hashes, h)
	}
	return p, nil
}

// LeafHash is the RFC 6962 hash of a leaf: SHA-256(0x00 || data). A
// logbook leaf's data is the signed session checkpoint, byte for byte as
// the server signed it (docs/log.md).
func LeafHash(data []byte) tlog.Hash { return tlog.RecordHash(data) }
