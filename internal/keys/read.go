package keys

import (
	"crypto/ed25519"
	"encoding/pem"
	"fmt"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// The one reading of the public-key files a command is handed (--pubkey,
// --trust, --attestor-key, --revoked): a regular file of at most
// readlimit.Key bytes, so that /dev/zero or a FIFO named as a key ends in
// a named error, and errors that name the flag and the file.

// ReadPublic reads the SPKI PEM public key in file, given as option flag
// (such as "--pubkey"). A file that cannot be read is returned as its own
// error (it names the file); a key that is not an Ed25519 SPKI key as
// "FLAG FILE: why". text is the file as read.
func ReadPublic(flag, file string) (pub ed25519.PublicKey, text []byte, err error) {
	text, err = readlimit.Small(file, readlimit.Key)
	if err != nil {
		return nil, nil, err
	}
	pub, err = ParsePublicKeyPEM(text)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %v", flag, file, err)
	}
	return pub, text, nil
}

// ReadPublicFiles is ReadPublic for each file, in order.
func ReadPublicFiles(flag string, files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		pub, _, err := ReadPublic(flag, f)
		if err != nil {
			return nil, err
		}
		out = append(out, pub)
	}
	return out, nil
}

// ReadPublicSet reads every PEM public key in each file: a file of trusted
// signers may hold several (--trust). A file with none, or with a block
// that is not an Ed25519 SPKI key, is an error naming the key's place.
func ReadPublicSet(flag string, files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		text, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			return nil, err
		}
		n := 0
		for rest := text; ; {
			var blk *pem.Block
			blk, rest = pem.Decode(rest)
			if blk == nil {
				break
			}
			pub, err := ParsePublicKeyPEM(pem.EncodeToMemory(blk))
			if err != nil {
				return nil, fmt.Errorf("%s %s: key %d: %v", flag, f, n+1, err)
			}
			out = append(out, pub)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s %s: no PEM public key", flag, f)
		}
	}
	return out, nil
}
