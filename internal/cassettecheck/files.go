package cassettecheck

import (
	"crypto/ed25519"
	"fmt"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// ReadKeys reads a cassette's pinned or revoked key files (the command's
// flag names them in errors): SPKI PEM, or a JWK or Node key object as
// runback's caller would give one (PublicKey), refusing keys under which
// forgeries verify. Each file is read as every key file is
// (readlimit.Key), but parsed by PublicKey, which also reads JSON keys.
func ReadKeys(flag string, files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		text, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			return nil, err
		}
		pub, err := PublicKey(text) // runback's own rule: no small-order key
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, f, err)
		}
		out = append(out, pub)
	}
	return out, nil
}

// ReadHMACKeys reads shared HMAC-SHA256 key files (--hmac-key), each
// without its trailing newline (TrimKey); an empty key is an error.
func ReadHMACKeys(files []string) ([][]byte, error) {
	var out [][]byte
	for _, f := range files {
		k, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			return nil, err
		}
		if k = TrimKey(k); len(k) == 0 {
			return nil, fmt.Errorf("--hmac-key %s: empty key", f)
		}
		out = append(out, k)
	}
	return out, nil
}
