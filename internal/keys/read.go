package keys

import (
	"crypto/ed25519"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
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
		if what := whatKey(text, flag); what != "" {
			return nil, nil, fmt.Errorf("%s %s: %s", flag, file, what)
		}
		return nil, nil, fmt.Errorf("%s %s: %v", flag, file, err)
	}
	return pub, text, nil
}

// ReadPrivate reads the PKCS#8 PEM Ed25519 private key in file, given as
// option flag (such as "--key"): a regular file of at most readlimit.Key
// bytes, like a public key's. A file that cannot be read is returned as
// its own error (it names the file); a key that is not an Ed25519 PKCS#8
// key as "FLAG FILE: why". It is the one reading of a private-key file
// (logbook-seal's signing key, which may also come from the environment,
// is found by cli.SigningKeyPEM).
func ReadPrivate(flag, file string) (ed25519.PrivateKey, error) {
	text, err := readlimit.Small(file, readlimit.Key)
	if err != nil {
		return nil, err
	}
	priv, err := ParsePrivateKeyPEM(text)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flag, file, err)
	}
	return priv, nil
}

// whatKey names a key file handed to a flag that wants an SPKI PEM public
// key, when it is another form of key users have at hand, and says which
// flag takes it; "" when it is none of those.
func whatKey(text []byte, flag string) string {
	t := strings.TrimSpace(string(text))
	switch {
	case NoteVerifierKey(t):
		return "this is a signed-note verifier key (NAME+HASH+KEY: a logbook-server's checkpoint key), not the SPKI PEM public key " + flag +
			" takes: pass it as --checkpoint-key; for " + flag + " give the server's PEM public key (KEY.pub, or GET /v1/key)"
	case strings.Contains(t, "PRIVATE KEY-----"):
		return "this is a private key; " + flag + " takes the public one (KEY.pub, written beside it by logbook-seal --new-key); never hand a verifier a private key"
	case strings.HasPrefix(t, "{") && strings.Contains(t, `"kty"`):
		return "this is a JSON Web Key; " + flag + " takes an SPKI PEM public key (a JWK is read only as a runback cassette's --pubkey or --revoked)"
	}
	return ""
}

// NoteVerifierKey reports one line of the C2SP signed-note verifier key
// form, NAME+HASH+KEY: a name without spaces or '+', 8 hex digits, and
// base64.
func NoteVerifierKey(line string) bool {
	name, rest, ok := strings.Cut(line, "+")
	if !ok || name == "" || strings.ContainsAny(name, " \t\n") {
		return false
	}
	hash, key, ok := strings.Cut(rest, "+")
	if !ok || len(hash) != 8 || key == "" || strings.ContainsAny(key, " \t\n") {
		return false
	}
	if !format.LowerHex(hash) {
		return false
	}
	for _, c := range key {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
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
