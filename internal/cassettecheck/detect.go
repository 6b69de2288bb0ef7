package cassettecheck

import (
	"bytes"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
)

// DetectPrefix is how many leading bytes Detect needs at most.
const DetectPrefix = 64 << 10

// Detect reports whether data (or its first DetectPrefix bytes) is a
// runback cassette: a JSON object whose top-level "$schema" is a string
// starting "runback.". Values before "$schema" are skipped without
// parsing them; a key deeper down never counts.
func Detect(data []byte) bool {
	if len(data) > DetectPrefix {
		data = data[:DetectPrefix]
	}
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for {
		i = skipWS(data, i)
		key, j, ok := rawString(data, i)
		if !ok {
			return false
		}
		i = skipWS(data, j)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipWS(data, i+1)
		if string(key) == `"$schema"` {
			val, _, ok := rawString(data, i)
			return ok && bytes.HasPrefix(val, []byte(`"runback.`))
		}
		if i = skipValue(data, i); i < 0 {
			return false
		}
		i = skipWS(data, i)
		if i >= len(data) || data[i] != ',' {
			return false
		}
		i++
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// rawString returns the string literal at i, quotes included, as written.
func rawString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return b[i : j+1], j + 1, true
		}
	}
	return nil, i, false
}

// skipValue returns the index after the value at i, or -1.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			_, j, ok := rawString(b, i)
			if !ok {
				return -1
			}
			i = j
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth == 0 && i < len(b) && (b[i] == ',' || b[i] == '}') {
			return i
		}
		if depth < 0 {
			return -1
		}
	}
	return -1
}

// Shaped reports a file Detect does not recognise that runback's verifier
// would still check as a cassette: JSON (as JSON.parse reads it) whose
// top level is an object with a "manifest" and an "events" array. Its
// "$schema" may be missing, of another type, written with escapes or too
// far in for Detect; runback then gives a verdict, and so does logbook.
func Shaped(data []byte) bool {
	v, _, err := js.Parse(data)
	return err == nil && v.Kind == js.Object && js.Prop(v, "manifest").Kind != js.Undefined && js.Prop(v, "events").Kind == js.Array
}
