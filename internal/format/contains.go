package format

import (
	"bytes"
	"strings"
)

// IsRecord reports a record: its "version" member names this format (a
// record is canonical JSON, so the member is written without spaces).
// It decides nothing: the verifier does; readers that take several kinds
// of file (logbook-verify) use it to tell a record from the others.
func IsRecord(data []byte) bool {
	pat := `"version":"` + Version + `"`
	return Contains(data, pat, strings.IndexByte(pat, '@'))
}

// Contains is bytes.Contains(data, pat), found by searching for pat[k:]
// and checking the k bytes before each hit. With pat[k] a byte rarer in
// the data than pat[0] it is several times faster on a record, where
// pat[0] is often '"', at every other position (a tenth of
// logbook-verify's time on a 100,000-step record went to two such scans).
func Contains(data []byte, pat string, k int) bool {
	rest := []byte(pat[k:])
	for off := k; off <= len(data); {
		i := bytes.Index(data[off:], rest)
		if i < 0 {
			return false
		}
		at := off + i
		if string(data[at-k:at]) == pat[:k] {
			return true
		}
		off = at + 1
	}
	return false
}
