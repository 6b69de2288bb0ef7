package checkpoint

import (
	"errors"
	"fmt"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// ReadFile reads a checkpoint (or a verifier key) file, at most
// MaxNote+1 bytes of it: a file that never ends (/dev/zero, a device) or a
// huge one costs no more, and one over MaxNote is no checkpoint (Open
// refuses it as too large).
func ReadFile(name string) ([]byte, error) {
	b, err := readlimit.Large(name, MaxNote)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return make([]byte, MaxNote+1), nil // CheckNote refuses it: ErrTooLarge
	}
	return b, err
}

// CheckNote says whether b can be a signed checkpoint at all: at most
// MaxNote bytes, a well-formed text (Parse), a blank line and signature
// lines. It checks no signature: that needs the pinned keys (Open).
func CheckNote(b []byte) error {
	if len(b) > MaxNote {
		return ErrTooLarge
	}
	text, sigs, ok := cutNote(b)
	if !ok || len(sigs) == 0 {
		return fmt.Errorf("%w: not a signed note (a text, a blank line, signature lines)", ErrMalformed)
	}
	_, err := Parse(text)
	return err
}

// cutNote splits a signed note after the text's final newline.
func cutNote(b []byte) (text, sigs []byte, ok bool) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\n' && b[i+1] == '\n' {
			return b[:i+1], b[i+2:], true
		}
	}
	return nil, nil, false
}
