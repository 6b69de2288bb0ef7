package signed

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// IDHash starts RecordID's hash, for signed bytes that are written to it
// as they are produced instead of held (the verifier's streamed check);
// IDOf finishes it.
func IDHash() hash.Hash {
	h := sha256.New()
	h.Write([]byte(idPrefix))
	return h
}

// IDOf is the record id from a hash IDHash started and the signed bytes
// were written to.
func IDOf(h hash.Hash) string {
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
