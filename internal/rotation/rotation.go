// Package rotation hands a logbook-server's signing key over to a new one
// as a signed note (docs/key-rotation.md): the old key signs that the new
// key speaks for the server from now on, and the new key signs it too, so
// the statement proves possession of both. The notes of one server form a
// chain, kept in DATA/key-rotations; a verifier that trusts the first key
// follows the chain to every later one, and still accepts what an earlier
// key signed before its hand-over (old records keep verifying).
package rotation

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/record"
)

// File is the chain's file name in the server's data directory.
const File = "key-rotations"

// header is the note's second line: it names what the note is, so that a
// rotation can never be taken for a session checkpoint (whose second line
// is a session id) under the same key.
const header = "logbook key rotation"

// Rotation is one hand-over.
type Rotation struct {
	Origin string
	Old    ed25519.PublicKey
	New    ed25519.PublicKey
	At     time.Time // from when the new key signs
	Note   []byte    // the signed note, as written
}

// Text is the note's text:
//
//	ORIGIN
//	logbook key rotation
//	old KEYID BASE64(32 key bytes)
//	new KEYID BASE64(32 key bytes)
//	at RFC3339
func (r Rotation) Text() string {
	return fmt.Sprintf("%s\n%s\nold %s %s\nnew %s %s\nat %s\n", r.Origin, header,
		checkpoint.KeyID(r.Old), base64.StdEncoding.EncodeToString(r.Old),
		checkpoint.KeyID(r.New), base64.StdEncoding.EncodeToString(r.New),
		r.At.UTC().Format(time.RFC3339))
}

// Sign makes the rotation from oldKey to newKey at the given time, signed
// by both under origin.
func Sign(origin string, oldKey, newKey ed25519.PrivateKey, at time.Time) (Rotation, error) {
	r := Rotation{Origin: origin, Old: oldKey.Public().(ed25519.PublicKey), New: newKey.Public().(ed25519.PublicKey), At: at.UTC().Truncate(time.Second)}
	if bytes.Equal(r.Old, r.New) {
		return Rotation{}, errors.New("the new key is the old key")
	}
	if why := record.WeakKey(r.New); why != "" {
		return Rotation{}, fmt.Errorf("new key: %s", why)
	}
	so, err := checkpoint.NewSigner(origin, oldKey)
	if err != nil {
		return Rotation{}, err
	}
	sn, err := checkpoint.NewSigner(origin, newKey)
	if err != nil {
		return Rotation{}, err
	}
	one, err := so.SignText(r.Text())
	if err != nil {
		return Rotation{}, err
	}
	two, err := sn.SignText(r.Text())
	if err != nil {
		return Rotation{}, err
	}
	// Both signature lines under the one text.
	_, sig2, _ := bytes.Cut(two, []byte("\n\n"))
	r.Note = append(one, sig2...)
	return r, nil
}

// Open checks one rotation note: its text, and a signature by each of the
// two keys it names (the old key's is the hand-over, the new key's the
// proof of possession).
func Open(msg []byte, origin string, old ed25519.PublicKey) (Rotation, error) {
	text, _, ok := bytes.Cut(msg, []byte("\n\n"))
	if !ok {
		return Rotation{}, errors.New("not a signed note")
	}
	lines := strings.Split(string(text), "\n")
	if len(lines) != 5 || lines[0] != origin || lines[1] != header {
		return Rotation{}, fmt.Errorf("not a key rotation of %s", origin)
	}
	var r Rotation
	r.Origin = origin
	f := strings.Fields(lines[3])
	if lines[2] != "old "+checkpoint.KeyID(old)+" "+base64.StdEncoding.EncodeToString(old) {
		return Rotation{}, errors.New("the rotation is not from the key in force")
	}
	if len(f) != 3 || f[0] != "new" {
		return Rotation{}, errors.New("malformed new key line")
	}
	newKey, err := base64.StdEncoding.DecodeString(f[2])
	if err != nil || len(newKey) != ed25519.PublicKeySize || checkpoint.KeyID(newKey) != f[1] {
		return Rotation{}, errors.New("the new key does not match its id")
	}
	if why := record.WeakKey(newKey); why != "" {
		return Rotation{}, fmt.Errorf("new key: %s", why)
	}
	at, err := time.Parse(time.RFC3339, strings.TrimPrefix(lines[4], "at "))
	if err != nil || !strings.HasPrefix(lines[4], "at ") {
		return Rotation{}, errors.New("malformed at line")
	}
	r.Old, r.New, r.At = old, newKey, at
	if r.Text() != string(text)+"\n" {
		return Rotation{}, errors.New("the rotation is not in its one written form")
	}
	for _, k := range []ed25519.PublicKey{old, r.New} {
		vkey, err := checkpoint.VerifierKey(origin, k)
		if err != nil {
			return Rotation{}, err
		}
		v, err := note.NewVerifier(vkey)
		if err != nil {
			return Rotation{}, err
		}
		n, err := note.Open(msg, note.VerifierList(v))
		if err != nil || len(n.Sigs) == 0 {
			return Rotation{}, fmt.Errorf("not signed by key %s", checkpoint.KeyID(k))
		}
	}
	r.Note = msg
	return r, nil
}

// Chain reads the notes in order (each note ends with a blank line) and
// follows them from first, the key trusted at the start; it returns the
// rotations. A note that does not open stops the chain with an error:
// nothing after it is trusted.
func Chain(data []byte, origin string, first ed25519.PublicKey) ([]Rotation, error) {
	var out []Rotation
	cur := first
	var last time.Time
	for len(bytes.TrimSpace(data)) > 0 {
		msg, rest := cutEntry(data)
		r, err := Open(msg, origin, cur)
		if err != nil {
			return out, fmt.Errorf("key rotation %d: %v", len(out)+1, err)
		}
		if r.At.Before(last) {
			return out, fmt.Errorf("key rotation %d: earlier than the one before", len(out)+1)
		}
		out = append(out, r)
		cur, last, data = r.New, r.At, rest
	}
	return out, nil
}

// cutEntry splits off one note: text, a blank line, signature lines, and
// the blank line that ends the entry in the file.
func cutEntry(b []byte) (msg, rest []byte) {
	i := bytes.Index(b, []byte("\n\n"))
	if i < 0 {
		return b, nil
	}
	j := bytes.Index(b[i+2:], []byte("\n\n"))
	if j < 0 {
		return b, nil
	}
	end := i + 2 + j + 1
	return b[:end], b[end+1:]
}

// Load reads DIR/key-rotations and returns the keys that signed for the
// server before key, oldest first, with the rotations. A server started
// with a key it has handed over, or whose chain does not end at its key,
// is refused: it would sign with a key verifiers no longer follow.
func Load(dir, origin string, key ed25519.PublicKey) ([]Rotation, error) {
	data, err := os.ReadFile(filepath.Join(dir, File))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	first, err := firstKey(data)
	if err != nil {
		return nil, err
	}
	rs, err := Chain(data, origin, first)
	if err != nil {
		return nil, err
	}
	if len(rs) > 0 && !bytes.Equal(rs[len(rs)-1].New, key) {
		for _, r := range rs {
			if bytes.Equal(r.Old, key) {
				return nil, fmt.Errorf("key %s was rotated out at %s (%s): start with the newest key", checkpoint.KeyID(key), r.At.Format(time.RFC3339), filepath.Join(dir, File))
			}
		}
		return nil, fmt.Errorf("key %s is not the newest key of %s", checkpoint.KeyID(key), filepath.Join(dir, File))
	}
	return rs, nil
}

// firstKey is the old key the chain's first note names; the chain then
// checks every signature from it on. (The server's own check needs no
// outside anchor: a verifier brings its own, see Chain.)
func firstKey(data []byte) (ed25519.PublicKey, error) {
	msg, _ := cutEntry(data)
	text, _, _ := bytes.Cut(msg, []byte("\n\n"))
	lines := strings.Split(string(text), "\n")
	if len(lines) < 3 {
		return nil, errors.New("key rotation 1: malformed")
	}
	f := strings.Fields(lines[2])
	if len(f) != 3 || f[0] != "old" {
		return nil, errors.New("key rotation 1: malformed old key line")
	}
	k, err := base64.StdEncoding.DecodeString(f[2])
	if err != nil || len(k) != ed25519.PublicKeySize {
		return nil, errors.New("key rotation 1: malformed old key")
	}
	return ed25519.PublicKey(k), nil
}

// Append adds a rotation to DIR/key-rotations, crash-safe (the file is
// rewritten whole, which keeps it small: one note per rotation).
func Append(dir string, r Rotation) error {
	path := filepath.Join(dir, File)
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return durable.WriteFileMode(path, append(append(old, r.Note...), '\n'), 0o600)
}

// Origin is the server name the chain's first note states (its first
// line), or "".
func Origin(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return string(line)
}

// Extend follows the chain in data from any of the trusted keys and
// returns the keys it hands over to, in order, that trusted does not
// already hold. A chain that starts from none of them adds nothing, and
// is an error: the caller asked to follow it.
func Extend(data []byte, trusted []ed25519.PublicKey) ([]ed25519.PublicKey, error) {
	first, err := firstKey(data)
	if err != nil {
		return nil, err
	}
	start := false
	for _, k := range trusted {
		start = start || bytes.Equal(k, first)
	}
	if !start {
		return nil, fmt.Errorf("the rotations start from key %s, which is none of the trusted keys", checkpoint.KeyID(first))
	}
	rs, err := Chain(data, Origin(data), first)
	if err != nil {
		return nil, err
	}
	var out []ed25519.PublicKey
	for _, r := range rs {
		out = append(out, r.New)
	}
	return out, nil
}
