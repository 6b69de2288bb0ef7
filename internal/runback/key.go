package runback

import "bytes"

// TrimKey is an HMAC key file's contents without one trailing newline
// (\n or \r\n), as `echo KEY > file` leaves it; runback takes the key as a
// command-line string, which has none.
func TrimKey(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
