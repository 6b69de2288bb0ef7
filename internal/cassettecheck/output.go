package cassettecheck

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
)

// JSON is what `logbook-verify --json CASSETTE` prints for Verify's result
// or error (a server's verify API answers the same bytes): the result
// object, or {"verdict": "invalid", "error": {"code", "detail"}}.
func JSON(res Result, err error) []byte {
	var v any = res
	if err != nil {
		e := &Error{Code: "ERROR", Detail: err.Error()}
		errors.As(err, &e)
		v = map[string]any{"verdict": Invalid, "error": map[string]string{"code": e.Code, "detail": e.Detail}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // plain data: cannot fail
	return b.Bytes()
}

// PublicKey reads a pinned or revoked key file, refusing a key under
// which forgeries verify (SMALL_ORDER_KEY). The file is an SPKI PEM, or
// JSON: a JSON Web Key ({"kty":"OKP","crv":"Ed25519","x":...}, as a JWKS
// endpoint serves one), or a key object as runback's caller would pass it
// to Node's createPublicKey ({"key": ..., "format": "jwk"|"pem"|"der",
// ...}), read as Node reads it.
func PublicKey(text []byte) (ed25519.PublicKey, error) {
	var pub ed25519.PublicKey
	if t := bytes.TrimLeft(text, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		v, _, err := js.Parse(t)
		if err != nil {
			return nil, fmt.Errorf("not a JSON key: %v", err)
		}
		var notes sigNotes
		ok := false
		if js.Prop(v, "key").Kind == js.Undefined && js.Prop(v, "kty").Kind != js.Undefined {
			pub, ok = jwkKey(v, &notes) // a bare JWK
		} else {
			pub, ok = parseKeyObject(v, &notes)
		}
		switch {
		case notes.nonEd25519:
			return nil, fmt.Errorf("not an Ed25519 key (%s)", NonEd25519Key)
		case !ok:
			return nil, errors.New(`not an Ed25519 key: want a JWK {"kty":"OKP","crv":"Ed25519","x":BASE64URL} or a key object {"key":...,"format":...}`)
		}
	} else {
		k, err := keys.ParsePublicKeyPEM(text)
		if err != nil {
			return nil, err
		}
		pub = k
	}
	if why := record.WeakKey(pub); why != "" {
		return nil, fmt.Errorf("%s (%s)", why, SmallOrderKey)
	}
	return pub, nil
}
