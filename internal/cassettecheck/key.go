package cassettecheck

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
)

// TrimKey is an HMAC key file's contents without one trailing newline
// (\n or \r\n), as `echo KEY > file` leaves it; runback takes the key as a
// command-line string, which has none.
func TrimKey(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// The embedded "pubkey" may be an object: Node's createPublicKey takes
// {key, format, type, encoding}. format "jwk" reads key as a JSON Web Key
// (RFC 8037: kty "OKP", crv "Ed25519", x the 32 key bytes in base64url);
// otherwise key must be a string, PEM by default or DER with format "der"
// and type "spki" (or "pkcs8": the public half of a private key), decoded
// from the string by encoding (utf8 by default, or hex, base64, base64url,
// latin1). A bare JWK, with no "key" member, is not a key to Node: it
// throws, and runback's verdict is "invalid".
func parseKeyObject(v *js.Value, notes *sigNotes) (ed25519.PublicKey, bool) {
	data := js.Prop(v, "key")
	format := js.Prop(v, "format")
	if isString(format, "jwk") {
		return jwkKey(data, notes)
	}
	if data.Kind != js.String {
		return nil, false
	}
	raw, ok := nodeDecode(data.Str, js.Prop(v, "encoding"))
	if !ok {
		return nil, false
	}
	switch {
	case format.Kind == js.Undefined || isString(format, "pem"):
		return parsePEM(raw, notes)
	case isString(format, "der"):
		typ := js.Prop(v, "type")
		switch {
		case isString(typ, "spki"):
			if len(raw) == len(spkiEd25519)+ed25519.PublicKeySize && bytes.HasPrefix(raw, spkiEd25519) {
				return ed25519.PublicKey(raw[len(spkiEd25519):]), true
			}
			notes.nonEd25519 = derSequence(raw)
		case isString(typ, "pkcs8"):
			if len(raw) == len(pkcs8Ed25519)+ed25519.SeedSize && bytes.HasPrefix(raw, pkcs8Ed25519) {
				notes.privateKeyPEM = true
				return ed25519.NewKeyFromSeed(raw[len(pkcs8Ed25519):]).Public().(ed25519.PublicKey), true
			}
		case isString(typ, "pkcs1"), isString(typ, "sec1"):
			notes.nonEd25519 = derSequence(raw) // an RSA or EC key
		}
	}
	return nil, false
}

// jwkKey reads a JSON Web Key as Node does for a public key: kty one of
// RSA, EC, OKP; for OKP crv one of Ed25519, Ed448, X25519, X448 and x a
// string, decoded as Node decodes base64 (either alphabet), which must
// give 32 bytes for Ed25519. A "d" member is ignored: the public half is
// read from x. RSA, EC and the other curves are keys of another
// algorithm.
func jwkKey(k *js.Value, notes *sigNotes) (ed25519.PublicKey, bool) {
	if k.Kind != js.Object {
		return nil, false
	}
	kty := js.Prop(k, "kty")
	switch {
	case isString(kty, "RSA"), isString(kty, "EC"):
		notes.nonEd25519 = true
		return nil, false
	case !isString(kty, "OKP"):
		return nil, false
	}
	crv, x := js.Prop(k, "crv"), js.Prop(k, "x")
	if crv.Kind != js.String || x.Kind != js.String {
		return nil, false
	}
	switch crv.Str {
	case "Ed25519":
	case "Ed448", "X25519", "X448":
		notes.nonEd25519 = true
		return nil, false
	default:
		return nil, false
	}
	raw := nodeBase64(x.Str)
	if len(raw) != ed25519.PublicKeySize {
		return nil, false
	}
	return ed25519.PublicKey(raw), true
}

// nodeDecode is Buffer.from(s, encoding) for the encodings a key string
// is given in; an unknown encoding throws in Node.
func nodeDecode(s string, enc *js.Value) ([]byte, bool) {
	if enc.Kind == js.Undefined {
		return js.AppendUTF8(nil, s), true
	}
	if enc.Kind != js.String {
		return nil, false
	}
	switch strings.ToLower(enc.Str) {
	case "utf8", "utf-8":
		return js.AppendUTF8(nil, s), true
	case "hex":
		return nodeHex(s), true
	case "base64", "base64url":
		return nodeBase64(s), true
	case "latin1", "binary":
		return latin1(s), true
	}
	return nil, false
}

// nodeBase64 decodes as Node 20's Buffer.from(s, "base64"): both the
// standard and the URL-safe alphabet, characters outside them skipped,
// decoding stopped at the first "="; a trailing group of two or three
// digits gives one or two bytes.
func nodeBase64(s string) []byte {
	out := make([]byte, 0, len(s)*3/4)
	var acc uint32
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			i = len(s)
			continue
		default:
			continue
		}
		acc = acc<<6 | uint32(v)
		n++
		if n == 4 {
			out = append(out, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(acc>>4))
	case 3:
		out = append(out, byte(acc>>10), byte(acc>>2))
	}
	return out
}

// latin1 is the low byte of each UTF-16 code unit of a WTF-8 string (a
// lone surrogate, ED A0-BF xx, is one unit).
func latin1(s string) []byte {
	var out []byte
	for i := 0; i < len(s); {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 {
			cp := rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			out = append(out, byte(cp))
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r > 0xFFFF {
			a, b := utf16.EncodeRune(r)
			out = append(out, byte(a), byte(b))
		} else {
			out = append(out, byte(r))
		}
		i += n
	}
	return out
}
