package runback

import (
	"encoding/json"
	"fmt"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/redact"
)

// Redactor removes secrets from text before it is hashed or kept.
// *redact.Redactor, the project's, is one.
type Redactor interface {
	// String returns s with each secret replaced.
	String(s string) string
	// SecretKey reports an object key whose whole value is a secret.
	SecretKey(name string) bool
}

// builtin is the project's redaction rules.
type builtin struct{}

func (builtin) String(s string) string     { return redact.String(s) }
func (builtin) SecretKey(name string) bool { return redact.SecretKey(name) }

// toValue turns a Go value into a redacted JavaScript value: encoded by
// encoding/json (only to get JSON text; the canonical bytes are jsvalue's),
// read back as JSON.parse would, every string redacted.
func toValue(v any, r Redactor) (js.Value, error) {
	if v == nil {
		return js.NullValue(), nil
	}
	text, err := json.Marshal(v)
	if err != nil {
		return js.Value{}, fmt.Errorf("runback: cannot encode %T: %w", v, err)
	}
	val, _, err := js.Parse(text)
	if err != nil {
		return js.Value{}, err
	}
	out := val.Clone() // own the strings: text is reused by nobody, but be plain
	redactValue(&out, r)
	return out, nil
}

func redactValue(v *js.Value, r Redactor) {
	switch v.Kind {
	case js.String:
		v.Str = r.String(v.Str)
	case js.Array:
		for i := range v.Items {
			redactValue(&v.Items[i], r)
		}
	case js.Object:
		for i := range v.Members {
			m := &v.Members[i]
			if m.Value.Kind != js.Null && r.SecretKey(m.Key) {
				m.Value = js.Str(redact.Mask)
				continue
			}
			redactValue(&m.Value, r)
		}
	}
}

// raw is the JSON an agent is handed: the canonical form of what the
// cassette holds.
func raw(v *js.Value) json.RawMessage { return json.RawMessage(js.Canonical(v)) }
