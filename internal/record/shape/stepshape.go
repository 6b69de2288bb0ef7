package shape

import (
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// stepShapeOK mirrors $defs/step of schema/record.schema.json in code. The
// schema library needs tens of microseconds a step, which would hold a
// 100,000-step record under 10 MB/s; this mirror decides the common case
// (a well-formed step) and every step it rejects goes to the library, which
// gives the detail. TestStepShapeMirrorsSchema and FuzzStepShape hold the
// two to the same verdict.
func stepShapeOK(v *strictjson.Value) bool {
	if v.Kind != strictjson.Object || len(v.Members) != 10 {
		return false
	}
	seen := 0
	for i := range v.Members {
		m := &v.Members[i]
		val := &m.Value
		var ok bool
		var bit int
		switch m.Key {
		case "seq":
			bit, ok = 1, isCount(val)
		case "at":
			bit, ok = 2, val.Kind == strictjson.String && instant.Pattern(val.Str)
		case "kind":
			bit, ok = 4, val.Kind == strictjson.String && format.IsKind(val.Str)
		case "summary":
			bit, ok = 8, val.Kind == strictjson.String
		case "data":
			bit, ok = 16, val.Kind == strictjson.Object
		case "inputsSha256":
			bit, ok = 32, isHexArray(val)
		case "outputsSha256":
			bit, ok = 64, isHexArray(val)
		case "dossier":
			bit, ok = 128, val.Kind == strictjson.Null || val.Kind == strictjson.Object
		case "prev":
			bit, ok = 256, val.Kind == strictjson.Null || isHex64(val)
		case "hash":
			bit, ok = 512, isHex64(val)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return seen == 1023
}

// isCount: an integer literal in [0, 2^53-1] (the range is already checked
// by the value rules; -0 is 0).
func isCount(v *strictjson.Value) bool {
	return v.Kind == strictjson.Number && (v.Str == "-0" || v.Str[0] != '-')
}

func isHex64(v *strictjson.Value) bool {
	return v.Kind == strictjson.String && format.Hex64(v.Str)
}

func isHexArray(v *strictjson.Value) bool {
	if v.Kind != strictjson.Array {
		return false
	}
	for i := range v.Items {
		if !isHex64(&v.Items[i]) {
			return false
		}
	}
	return true
}
