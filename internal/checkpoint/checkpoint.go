// Package checkpoint makes and checks the signed checkpoints a logbook
// server issues after every append (docs/checkpoint.md): a C2SP signed
// note (golang.org/x/mod/sumdb/note) whose text names the server, the
// session, the step count, the chain tip, the time, the digest of the
// redaction configuration in force and the server key's id. A record
// checked against one proves that the steps the server saw are all there
// and unchanged, whoever sealed it.
package checkpoint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/instant"
)

// Version is the second line of every checkpoint text.
const Version = "logbook-checkpoint/v1"

// MaxNote bounds a signed checkpoint's size: a text of eight short lines
// and a few signatures.
const MaxNote = 16 << 10

// Checkpoint is what a checkpoint text states.
type Checkpoint struct {
	Origin  string // the server's name; also the signing key's note name
	Session string // the session id
	Size    int64  // steps in the session's chain, >= 1
	Tip     string // hash of step Size-1 (64 lowercase hex)
	Time    string // when it was signed (RFC 3339 UTC, spec §4 form)
	Redact  string // SHA-256 of the redaction configuration in force
	KeyID   string // SHA-256 of the server key's SPKI (a record's keyId)
}

// ErrMalformed is wrapped by every error Parse returns.
var ErrMalformed = errors.New("malformed checkpoint text")

// Text returns the checkpoint's text: eight lines, each ending in a newline.
func (c *Checkpoint) Text() []byte {
	var b strings.Builder
	b.Grow(320)
	b.WriteString(c.Origin)
	b.WriteString("\n" + Version + "\n")
	b.WriteString("session " + c.Session + "\n")
	b.WriteString("size " + strconv.FormatInt(c.Size, 10) + "\n")
	b.WriteString("tip " + c.Tip + "\n")
	b.WriteString("time " + c.Time + "\n")
	b.WriteString("redact " + c.Redact + "\n")
	b.WriteString("key " + c.KeyID + "\n")
	return []byte(b.String())
}

// Check reports whether every field is well formed (the rules of Parse).
func (c *Checkpoint) Check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
	}
	if !ValidOrigin(c.Origin) {
		return bad("origin %q: want 1-255 printable ASCII characters, no space or '+', not starting with '{'", c.Origin)
	}
	if !validSession(c.Session) {
		return bad("session %q: want 1-128 characters of [A-Za-z0-9._-], not starting with '.' or '-'", c.Session)
	}
	if c.Size < 1 {
		return bad("size %d: want at least 1", c.Size)
	}
	for _, h := range [][2]string{{"tip", c.Tip}, {"redact", c.Redact}, {"key", c.KeyID}} {
		if !format.Hex64(h[1]) {
			return bad("%s %q: want 64 lowercase hex digits", h[0], h[1])
		}
	}
	if !instant.Valid(c.Time) {
		return bad("time %q: want an RFC 3339 UTC instant", c.Time)
	}
	return nil
}

// Parse reads a checkpoint text: exactly the eight lines Text writes, in
// that order, every field well formed, nothing else.
func Parse(text []byte) (Checkpoint, error) {
	var c Checkpoint
	s := string(text)
	if !strings.HasSuffix(s, "\n") {
		return c, fmt.Errorf("%w: the text does not end in a newline", ErrMalformed)
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != 8 {
		return c, fmt.Errorf("%w: %d lines, want 8", ErrMalformed, len(lines))
	}
	if lines[1] != Version {
		return c, fmt.Errorf("%w: second line %q, want %q", ErrMalformed, lines[1], Version)
	}
	c.Origin = lines[0]
	fields := []struct {
		name string
		dst  *string
	}{{"session", &c.Session}, {"size", nil}, {"tip", &c.Tip}, {"time", &c.Time}, {"redact", &c.Redact}, {"key", &c.KeyID}}
	for i, f := range fields {
		line := lines[2+i]
		v, ok := strings.CutPrefix(line, f.name+" ")
		if !ok {
			return c, fmt.Errorf("%w: line %d %q, want %q", ErrMalformed, 3+i, line, f.name+" …")
		}
		if f.dst != nil {
			*f.dst = v
			continue
		}
		// size: a decimal without sign or leading zeros.
		if v == "" || len(v) > 16 || strings.Trim(v, "0123456789") != "" || (v[0] == '0') {
			return c, fmt.Errorf("%w: size %q", ErrMalformed, v)
		}
		c.Size, _ = strconv.ParseInt(v, 10, 64)
	}
	return c, c.Check()
}

// ValidOrigin: a note key name (non-empty, no space, no '+') limited to
// printable ASCII, and not starting with '{' so that no checkpoint text
// can ever read as the start of a record's signed bytes (which are JSON
// and hold no raw newline: the two never share a signing domain).
func ValidOrigin(s string) bool {
	if s == "" || len(s) > 255 || s[0] == '{' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' || s[i] == '+' {
			return false
		}
	}
	return true
}

func validSession(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			(i > 0 && (c == '.' || c == '-'))
		if !ok {
			return false
		}
	}
	return true
}
