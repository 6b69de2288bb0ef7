package verdict

import (
	"bytes"
	"fmt"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
)

// ParseCheckpointKey reads a pinned server key for checkpoints
// (--checkpoint-key): an SPKI PEM public key or a note verifier key
// NAME+HASH+KEY. A weak key is refused: under it any checkpoint would
// verify. name is the file, for the error.
func ParseCheckpointKey(name string, text []byte) (checkpoint.Key, error) {
	var k checkpoint.Key
	var err error
	if bytes.Contains(text, []byte("-----BEGIN")) {
		k.Pub, err = keys.ParsePublicKeyPEM(text)
	} else {
		k, err = checkpoint.ParseVerifierKey(text)
	}
	if err != nil {
		return k, fmt.Errorf("--checkpoint-key %s: %v", name, err)
	}
	if d := record.WeakKey(k.Pub); d != "" {
		return k, fmt.Errorf("--checkpoint-key %s: %s; under it any checkpoint would verify", name, d)
	}
	return k, nil
}
