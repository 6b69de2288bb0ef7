// Package shape is the verifier's SHAPE check (spec §2 and §4): the
// record's values (integers in the safe range, no fractions or exponents),
// the JSON schema of the record and of each step (a code mirror of
// $defs/step decides the common case, the schema library gives the
// detail), the session's instants and the DER byte strings.
package shape

import (
	"encoding/asn1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/schema"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// maxSafe is 2^53-1, the largest integer a record may hold (spec §2).
const maxSafe = 1<<53 - 1

// Values enforces spec §2 over the whole tree: numbers are integer
// literals (no '.', no exponent) within ±(2^53-1). It returns a detail for
// SHAPE, or "". The JSON Pointer of the offending value is built only on
// failure, on the way back up.
func Values(v *strictjson.Value) string {
	path, bad := badNumber(v)
	if bad == nil {
		return ""
	}
	return path + ": " + NumberProblem(bad.Str)
}

// NumberProblem says why a number literal may not stand in a record, or
// returns "" (spec §2: an integer literal within ±(2^53-1)).
func NumberProblem(lit string) string {
	if strings.ContainsAny(lit, ".eE") {
		return lit + " is not an integer literal"
	}
	if n, err := strconv.ParseInt(lit, 10, 64); err != nil || n > maxSafe || n < -maxSafe {
		return lit + " is outside ±(2^53-1)"
	}
	return ""
}

func badNumber(v *strictjson.Value) (string, *strictjson.Value) {
	switch v.Kind {
	case strictjson.Number:
		if NumberProblem(v.Str) != "" {
			return "", v
		}
	case strictjson.Array:
		for i := range v.Items {
			if p, bad := badNumber(&v.Items[i]); bad != nil {
				return "/" + strconv.Itoa(i) + p, bad
			}
		}
	case strictjson.Object:
		for i := range v.Members {
			if p, bad := badNumber(&v.Members[i].Value); bad != nil {
				return "/" + pointerToken(v.Members[i].Key) + p, bad
			}
		}
	}
	return "", nil
}

// pointerToken escapes a key as a JSON Pointer token (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

var compiled = sync.OnceValues(func() (*schemas, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schema.RecordURL, strings.NewReader(string(schema.Record))); err != nil {
		return nil, err
	}
	rec, err := c.Compile(schema.RecordURL)
	if err != nil {
		return nil, err
	}
	step, err := c.Compile(schema.RecordURL + "#/$defs/step")
	return &schemas{record: rec, step: step}, err
})

type schemas struct{ record, step *jsonschema.Schema }

// Top validates the record against schema/record.schema.json
// with its steps array emptied (the steps are streamed and checked one by
// one by checkStepShape). It returns a detail for SHAPE, or "".
func Top(v *strictjson.Value) string {
	sch, err := compiled()
	if err != nil {
		// The schema is embedded and tested; failing here is a build defect,
		// and failing closed is still the right answer.
		return "schema does not compile: " + err.Error()
	}
	doc := toAny(v)
	if top, ok := doc.(map[string]any); ok {
		if steps := v.Get("steps"); steps != nil && steps.Kind == strictjson.Array {
			top["steps"] = []any{}
		}
	}
	if err := sch.record.Validate(doc); err != nil {
		return schemaDetail(err, "")
	}
	return ""
}

// Step checks one step against $defs/step: stepShapeOK decides
// the common case, and a step it rejects goes to the schema library, which
// gives the detail. i is the step's index; full returns the step with all
// its children (st may hold "data" and "dossier" without theirs).
func Step(st *strictjson.Value, i int, full func() *strictjson.Value) string {
	if stepShapeOK(st) {
		return ""
	}
	st = full()
	at := "/steps/" + strconv.Itoa(i)
	sch, err := compiled()
	if err != nil {
		return "schema does not compile: " + err.Error()
	}
	if err := sch.step.Validate(toAny(st)); err != nil {
		return schemaDetail(err, at)
	}
	return at + ": the schema accepts this step but its mirror in code does not (a defect; refusing)"
}

// schemaDetail names one offending field: of the deepest causes, the one
// whose location and message sort first, so that the same record always
// gets the same detail (the library reports causes in map order); prefix
// is the JSON Pointer of the validated value within the record.
func schemaDetail(err error, prefix string) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	best := firstLeaf(ve)
	loc := prefix + best.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return loc + ": " + sortQuoted(best.Message)
}

// sortQuoted puts the 'quoted' names in a library message in order: the
// library lists unknown properties in map order, which would make the
// detail differ between runs on the same record.
func sortQuoted(msg string) string {
	const head = "additionalProperties "
	if !strings.HasPrefix(msg, head) || !strings.HasSuffix(msg, " not allowed") {
		return msg
	}
	names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(msg, head), " not allowed"), ", ")
	sort.Strings(names)
	return head + strings.Join(names, ", ") + " not allowed"
}

func firstLeaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return ve
	}
	var best *jsonschema.ValidationError
	for _, c := range ve.Causes {
		l := firstLeaf(c)
		if best == nil || l.InstanceLocation < best.InstanceLocation ||
			(l.InstanceLocation == best.InstanceLocation && l.Message < best.Message) {
			best = l
		}
	}
	return best
}

// toAny converts the tree to the generic form the schema library validates
// (the form encoding/json would produce with UseNumber). The tree was read
// by the strict reader, so duplicates and bad text are already refused.
func toAny(v *strictjson.Value) any {
	switch v.Kind {
	case strictjson.Null:
		return nil
	case strictjson.True:
		return true
	case strictjson.False:
		return false
	case strictjson.Number:
		return json.Number(v.Str)
	case strictjson.String:
		return v.Str
	case strictjson.Array:
		out := make([]any, len(v.Items))
		for i := range v.Items {
			out[i] = toAny(&v.Items[i])
		}
		return out
	default:
		out := make(map[string]any, len(v.Members))
		for i := range v.Members {
			out[v.Members[i].Key] = toAny(&v.Members[i].Value)
		}
		return out
	}
}

// DER: the byte strings that §4 says are DER (signature.rfc3161, a
// TimeStampToken; signerIdentity.certificates, X.509 certificates) must
// each be one well-formed DER SEQUENCE with nothing after it. What they
// say is judged only when the caller asks for timestamp or identity
// checks; without this, any hex would pass as a token or a certificate.
func DER(rec *strictjson.Value) string {
	if tok := rec.Get("signature").Get("rfc3161"); tok != nil && !derSequence(tok.Str) {
		return "/signature/rfc3161: not a DER SEQUENCE (an RFC 3161 TimeStampToken)"
	}
	if certs := rec.Get("signerIdentity").Get("certificates"); certs != nil {
		for i := range certs.Items {
			if !derSequence(certs.Items[i].Str) {
				return fmt.Sprintf("/signerIdentity/certificates/%d: not a DER SEQUENCE (an X.509 certificate)", i)
			}
		}
	}
	return ""
}

func derSequence(hexText string) bool {
	der, err := hex.DecodeString(hexText)
	if err != nil {
		return false
	}
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(der, &raw)
	return err == nil && len(rest) == 0 && raw.Class == asn1.ClassUniversal && raw.Tag == asn1.TagSequence && raw.IsCompound
}

// SessionInstants: the session's times are real calendar instants
// (the schema's pattern cannot say which days a month has).
func SessionInstants(rec *strictjson.Value) string {
	sess := rec.Get("session")
	for _, k := range []string{"startedAt", "endedAt"} {
		if s, _ := sess.GetString(k); !instant.Valid(s) {
			return fmt.Sprintf("/session/%s: %q is not a calendar instant", k, s)
		}
	}
	return ""
}

// CheckStep parses one step's text and runs the value and shape checks a
// record's steps get (spec §2, §4), returning a SHAPE detail or "". The
// recorder's fuzz tests use it to show that whatever a harness sends, the
// step written for it is one a verifier accepts.
func CheckStep(text []byte) string {
	v, err := strictjson.Parse(text, strictjson.Options{MaxDepth: format.MaxDepth - 2})
	if err != nil {
		return "not JSON: " + err.Error()
	}
	if d := Values(v); d != "" {
		return d
	}
	if d := Step(v, 0, func() *strictjson.Value { return v }); d != "" {
		return d
	}
	if s, _ := v.GetString("at"); !instant.Valid(s) {
		return "at is not a calendar instant"
	}
	return ""
}
