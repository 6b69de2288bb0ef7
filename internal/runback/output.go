package runback

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

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

// PublicKey reads a pinned or revoked key (SPKI PEM), refusing one under
// which forgeries verify (SMALL_ORDER_KEY).
func PublicKey(pem []byte) (ed25519.PublicKey, error) {
	pub, err := keys.ParsePublicKeyPEM(pem)
	if err != nil {
		return nil, err
	}
	if why := record.WeakKey(pub); why != "" {
		return nil, fmt.Errorf("%s (%s)", why, SmallOrderKey)
	}
	return pub, nil
}
