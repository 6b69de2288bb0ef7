// Package digest computes the body digests of spec §8: every body enters a
// record only as a lowercase hex SHA-256.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Bytes is the digest of raw bytes (a command's output, a file).
func Bytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// String is Bytes of s's bytes, hashed a piece at a time: []byte(s)
// would copy a body of tens of MB whole first.
func String(s string) string {
	h := sha256.New()
	var buf [32 << 10]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
	return hexSum(h)
}

// Body returns the digest of the JSON value v, a member of the top-level
// object of the payload src, standing at src[v.Start:v.End] (spec §8):
//   - a string: SHA-256 of its UTF-8 bytes (no quotes, no escapes);
//   - any other value: SHA-256 of its RFC 8785 canonical form, streamed
//     into the hash; v may have been read shallowly (no children): arrays
//     and objects are canonicalized from their text a level at a time, so
//     a body of millions of values is never held as a tree;
//   - a value with no canonical form (lone surrogate, duplicate key, number
//     outside double range, text that is not UTF-8), or one whose long
//     containers nest deeper than maxLongLevels: SHA-256 of its exact
//     text, with raw = true.
func Body(v *strictjson.Value, src []byte) (sum string, raw bool) {
	if v.Kind == strictjson.String && v.Flags == 0 {
		return String(v.Str), false
	}
	if v.Flags == 0 {
		h := sha256.New()
		b := jcs.Buffer{Spill: h, MaxLongLevels: maxLongLevels}
		var err error
		if v.Kind == strictjson.Array || v.Kind == strictjson.Object {
			err = b.AppendText(src[v.Start:v.End], strictjson.Options{Lenient: true, MaxDepth: maxDepth, Depth: 1}, nil)
		} else {
			err = b.Append(v)
		}
		if err == nil && b.Flush() == nil {
			return hexSum(h), false
		}
	}
	return Bytes(src[v.Start:v.End]), true
}

// maxDepth bounds nesting as the hook payload reader does.
const maxDepth = 16384

// maxLongLevels bounds the nesting of containers longer than
// jcs.TreeUnder in a body, and with it the time to digest a body to 17
// reads of it. A body beyond it (a hostile payload: a 10 MB value inside
// thousands of arrays) is digested over its exact text and listed in
// data.rawDigests, as a value with no canonical form is.
const maxLongLevels = 16

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// File is the digest of a file's bytes, read as a stream (an executable
// for session.recorder or a recorder attestation).
func File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hexSum(h), nil
}
