// Package bundle reads and writes a hand-over bundle (docs/bundle.md): one
// strict JSON file holding a sealed record and what its checks need — the
// signer's public key, attestations and their attestors' keys, the
// time-stamping roots the sender used, the server's signed checkpoints and
// the C2SP tlog-proof of the record's logging, with the sender's checkpoint
// keys and log policy as hints (never trusted: the receiver pins its own).
// Each part is kept as the exact text it had on its own, so
// checking a bundle gives the same verdicts, with the same codes, as
// checking its parts.
package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Format is the value of a bundle's "format" member.
const Format = "logbook/bundle@0"

// MediaType is the value of a bundle's "mediaType" member, the media type
// of the file (as a Sigstore bundle names its own): a reader, a mail
// filter or a registry can tell a bundle by it without knowing "format".
// Write always writes it; Read requires it to be this when present
// (bundles written before it was added have none).
const MediaType = "application/vnd.logbook.bundle.v0+json"

// Invalid is the refusal code of a bundle that is not one: not strict
// JSON, not an object, another format, an unknown or missing member, or a
// member of the wrong type. A damaged part inside a sound bundle gets that
// part's own code instead (spec §7 for the record).
const Invalid = format.BundleInvalid

// MaxDepth: a record may nest 64 deep (spec §1), one more for the bundle.
const MaxDepth = 65

// Bundle is a bundle's parts. Record, Attestations and Checkpoints are the
// exact bytes of each part's text.
type Bundle struct {
	Record       []byte
	SignerKey    string   // SPKI PEM
	Attestations [][]byte // DSSE envelopes
	AttestorKeys []string // SPKI PEM
	TSARoots     string   // PEM certificates; "" when none
	Checkpoints  [][]byte // signed checkpoint notes (docs/checkpoint.md), each exactly as written
	// CheckpointKeys are hints: the sender's checkpoint verifier keys
	// (note verifier key NAME+HASH+KEY, or SPKI PEM). Nothing is checked
	// under them; a verifier reports their fingerprints.
	CheckpointKeys []string
	// LogProofs are C2SP tlog-proofs of the record's final checkpoint
	// (docs/log.md), each exactly as written; at most MaxLogProofs.
	LogProofs [][]byte
	// LogPolicy is a hint: the sender's C2SP tlog-policy, "" when none.
	// Nothing is judged under it; a verifier reports its SHA-256.
	LogPolicy string
}

// MaxLogProofs: a record's final checkpoint is logged once, and a verifier
// judges one proof of logging per record (docs/log.md, step 10).
const MaxLogProofs = 1

// Looks reports whether a file's first bytes are a bundle's: its
// mediaType or format member, written first (a reader that opens records
// and bundles alike tells them apart by it).
func Looks(data []byte) bool {
	head := data[:min(len(data), 256)]
	for _, m := range [][]byte{[]byte(`"mediaType": "` + MediaType + `"`), []byte(`"mediaType":"` + MediaType + `"`),
		[]byte(`"format": "` + Format + `"`), []byte(`"format":"` + Format + `"`)} {
		if bytes.Contains(head, m) {
			return true
		}
	}
	return false
}

// Error is a bundle refusal: Code is Invalid.
type Error struct{ Detail string }

func (e *Error) Error() string { return string(Invalid) + ": " + e.Detail }

func invalid(format string, a ...any) error { return &Error{Detail: fmt.Sprintf(format, a...)} }

var members = map[string]bool{"mediaType": true, "format": true, "record": true, "signerKey": true, "attestations": true,
	"attestorKeys": true, "tsaRoots": true, "checkpoints": true, "checkpointKeys": true, "logProofs": true,
	"logPolicy": true}

// Read parses a bundle strictly. It judges only the container: the parts
// are checked by whoever checks a record, an attestation, a checkpoint.
func Read(data []byte) (*Bundle, error) {
	v, err := strictjson.Parse(data, strictjson.Options{MaxDepth: MaxDepth})
	if err != nil {
		return nil, invalid("not strict JSON: %v", err)
	}
	if v.Kind != strictjson.Object {
		return nil, invalid("not a JSON object")
	}
	for _, m := range v.Members {
		if !members[m.Key] {
			return nil, invalid("unknown member %q", m.Key)
		}
	}
	if f, _ := v.GetString("format"); f != Format {
		return nil, invalid("format is not %q", Format)
	}
	if m := v.Get("mediaType"); m != nil && (m.Kind != strictjson.String || m.Str != MediaType) {
		return nil, invalid("mediaType is not %q", MediaType)
	}
	b := &Bundle{}
	rec := v.Get("record")
	if rec == nil || rec.Kind != strictjson.Object {
		return nil, invalid("record is missing or not an object")
	}
	b.Record = data[rec.Start:rec.End]
	var ok bool
	if b.SignerKey, ok = v.GetString("signerKey"); !ok || b.SignerKey == "" {
		return nil, invalid("signerKey is missing or not a string")
	}
	if a := v.Get("attestations"); a != nil {
		if a.Kind != strictjson.Array {
			return nil, invalid("attestations is not an array")
		}
		for i := range a.Items {
			it := &a.Items[i]
			if it.Kind != strictjson.Object {
				return nil, invalid("attestations[%d] is not an object", i)
			}
			b.Attestations = append(b.Attestations, data[it.Start:it.End])
		}
	}
	if a := v.Get("attestorKeys"); a != nil {
		if a.Kind != strictjson.Array {
			return nil, invalid("attestorKeys is not an array")
		}
		for i := range a.Items {
			if a.Items[i].Kind != strictjson.String {
				return nil, invalid("attestorKeys[%d] is not a string", i)
			}
			b.AttestorKeys = append(b.AttestorKeys, a.Items[i].Str)
		}
	}
	if r := v.Get("tsaRoots"); r != nil {
		if r.Kind != strictjson.String {
			return nil, invalid("tsaRoots is not a string")
		}
		b.TSARoots = r.Str
	}
	if c := v.Get("checkpoints"); c != nil {
		if c.Kind != strictjson.Array {
			return nil, invalid("checkpoints is not an array")
		}
		for i := range c.Items {
			if c.Items[i].Kind != strictjson.String || c.Items[i].Str == "" {
				return nil, invalid("checkpoints[%d] is not a non-empty string", i)
			}
			b.Checkpoints = append(b.Checkpoints, []byte(c.Items[i].Str))
		}
	}
	if c := v.Get("checkpointKeys"); c != nil {
		if c.Kind != strictjson.Array {
			return nil, invalid("checkpointKeys is not an array")
		}
		for i := range c.Items {
			if c.Items[i].Kind != strictjson.String || c.Items[i].Str == "" {
				return nil, invalid("checkpointKeys[%d] is not a non-empty string", i)
			}
			b.CheckpointKeys = append(b.CheckpointKeys, c.Items[i].Str)
		}
	}
	if l := v.Get("logProofs"); l != nil {
		if l.Kind != strictjson.Array {
			return nil, invalid("logProofs is not an array")
		}
		if len(l.Items) > MaxLogProofs {
			return nil, invalid("logProofs holds %d proofs; at most %d", len(l.Items), MaxLogProofs)
		}
		for i := range l.Items {
			if l.Items[i].Kind != strictjson.String || l.Items[i].Str == "" {
				return nil, invalid("logProofs[%d] is not a non-empty string", i)
			}
			b.LogProofs = append(b.LogProofs, []byte(l.Items[i].Str))
		}
	}
	if p := v.Get("logPolicy"); p != nil {
		if p.Kind != strictjson.String {
			return nil, invalid("logPolicy is not a string")
		}
		b.LogPolicy = p.Str
	}
	return b, nil
}

// Write lays out a bundle. Each JSON part must be one strict JSON text
// (a record that verifies is); it is copied byte for byte, trimmed of
// surrounding whitespace. The result ends with a newline.
func Write(b *Bundle) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString("{\n")
	field := func(key string, raw []byte) {
		out.WriteString("  ")
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteString(": ")
		out.Write(raw)
	}
	str := func(s string) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s) // a string always encodes
		return bytes.TrimRight(buf.Bytes(), "\n")
	}
	part := func(name string, raw []byte, kinds ...strictjson.Kind) ([]byte, error) {
		raw = bytes.TrimSpace(raw)
		v, err := strictjson.Parse(raw, strictjson.Options{MaxDepth: MaxDepth - 1})
		if err != nil {
			return nil, fmt.Errorf("%s is not strict JSON: %v", name, err)
		}
		for _, k := range kinds {
			if v.Kind == k {
				return raw, nil
			}
		}
		return nil, fmt.Errorf("%s is not a JSON object", name)
	}
	field("mediaType", str(MediaType))
	out.WriteString(",\n")
	field("format", str(Format))
	out.WriteString(",\n")
	rec, err := part("the record", b.Record, strictjson.Object)
	if err != nil {
		return nil, err
	}
	field("record", rec)
	out.WriteString(",\n")
	if b.SignerKey == "" {
		return nil, errors.New("no signer key")
	}
	field("signerKey", str(b.SignerKey))
	out.WriteString(",\n")
	out.WriteString(`  "attestations": [`)
	for i, a := range b.Attestations {
		raw, err := part(fmt.Sprintf("attestation %d", i+1), a, strictjson.Object)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString(", ")
		}
		out.Write(raw)
	}
	out.WriteString("],\n")
	out.WriteString(`  "attestorKeys": [`)
	for i, k := range b.AttestorKeys {
		if i > 0 {
			out.WriteString(", ")
		}
		out.Write(str(k))
	}
	out.WriteString("]")
	if b.TSARoots != "" {
		out.WriteString(",\n")
		field("tsaRoots", str(b.TSARoots))
	}
	texts := func(name string, items [][]byte) error {
		if len(items) == 0 && name != "logProofs" { // written even when empty, as it always was
			return nil
		}
		out.WriteString(",\n  ")
		k, _ := json.Marshal(name)
		out.Write(k)
		out.WriteString(": [")
		for i, c := range items {
			if len(c) == 0 || !utf8.Valid(c) {
				return fmt.Errorf("%s %d is not UTF-8 text", name, i+1)
			}
			if i > 0 {
				out.WriteString(", ")
			}
			out.Write(str(string(c)))
		}
		out.WriteString("]")
		return nil
	}
	if len(b.LogProofs) > MaxLogProofs {
		return nil, fmt.Errorf("%d log proofs: a bundle holds at most %d", len(b.LogProofs), MaxLogProofs)
	}
	var keyTexts [][]byte
	for _, k := range b.CheckpointKeys {
		keyTexts = append(keyTexts, []byte(k))
	}
	for _, p := range []struct {
		name  string
		items [][]byte
	}{{"checkpoints", b.Checkpoints}, {"checkpointKeys", keyTexts}, {"logProofs", b.LogProofs}} {
		if err := texts(p.name, p.items); err != nil {
			return nil, err
		}
	}
	if b.LogPolicy != "" {
		out.WriteString(",\n")
		field("logPolicy", str(b.LogPolicy))
	}
	out.WriteString("\n}\n")
	if _, err := Read(out.Bytes()); err != nil {
		return nil, err // unreachable: every part was checked
	}
	return out.Bytes(), nil
}
