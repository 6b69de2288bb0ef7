package checkpoint

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Key is a pinned server key. Name is the origin it must sign for; "" (a
// key read from an SPKI PEM file) accepts any origin: the key is what is
// trusted, the name only labels it.
type Key struct {
	Name string
	Pub  ed25519.PublicKey
}

// ParseVerifierKey reads a note verifier key, "name+hash+keydata" (one
// line; surrounding white space is ignored).
func ParseVerifierKey(text []byte) (Key, error) {
	s := strings.TrimSpace(string(text))
	v, err := note.NewVerifier(s)
	if err != nil {
		return Key{}, fmt.Errorf("not a note verifier key: %v", err)
	}
	// name and hash hold no '+'; the base64 keydata may.
	parts := strings.SplitN(s, "+", 3)
	// keydata is base64(1, then the 32 key bytes); NewVerifier checked it.
	raw, _ := decodeB64(parts[2])
	return Key{Name: v.Name(), Pub: ed25519.PublicKey(raw[1:])}, nil
}

// Errors Open wraps: all of them are CHECKPOINT_INVALID to a verifier.
var (
	ErrNotSigned = errors.New("not signed by a pinned server key")
	ErrKeyID     = errors.New("the key line does not name the key that signed")
	ErrTooLarge  = fmt.Errorf("over %d bytes", MaxNote)
)

// Open verifies a signed checkpoint under the pinned keys and parses its
// text. weak, when not nil, says why a key must not be trusted (spec §7
// step 7's weak-key rule); such a key verifies nothing.
func Open(msg []byte, keys []Key, weak func([]byte) string) (Checkpoint, error) {
	return newOpener(keys, weak).open(msg)
}

// opener opens notes under one set of keys. The work that depends on the
// keys alone (the weak-key check) is done once, and the verifiers for an
// origin once per origin: opening n notes under k keys costs about n + k
// such steps, not n × k (POST /v1/verify takes both from its caller).
type opener struct {
	keys     []Key
	byOrigin map[string]*verifiers
}

type verifiers struct {
	list   note.Verifiers
	byHash map[uint32]ed25519.PublicKey
	err    error
}

func newOpener(keys []Key, weak func([]byte) string) *opener {
	o := &opener{byOrigin: map[string]*verifiers{}}
	type id struct{ name, pub string }
	seen := map[id]bool{}
	for _, k := range keys {
		if seen[id{k.Name, string(k.Pub)}] {
			continue
		}
		seen[id{k.Name, string(k.Pub)}] = true
		if weak != nil && weak(k.Pub) != "" {
			continue
		}
		o.keys = append(o.keys, k)
	}
	return o
}

// verifiers returns the verifiers of the keys that may sign for origin.
func (o *opener) verifiers(origin string) *verifiers {
	if v := o.byOrigin[origin]; v != nil {
		return v
	}
	out := &verifiers{byHash: map[uint32]ed25519.PublicKey{}}
	var vs []note.Verifier
	for _, k := range o.keys {
		if k.Name != "" && k.Name != origin {
			continue
		}
		vkey, err := VerifierKey(origin, k.Pub)
		if err != nil {
			out.err = fmt.Errorf("%w: %v", ErrMalformed, err)
			break
		}
		v, err := note.NewVerifier(vkey)
		if err != nil {
			out.err = fmt.Errorf("%w: %v", ErrMalformed, err)
			break
		}
		if _, dup := out.byHash[v.KeyHash()]; dup {
			continue
		}
		out.byHash[v.KeyHash()] = k.Pub
		vs = append(vs, v)
	}
	out.list = note.VerifierList(vs...)
	if len(o.byOrigin) < 64 { // a flood of forged origins is not cached
		o.byOrigin[origin] = out
	}
	return out
}

func (o *opener) open(msg []byte) (Checkpoint, error) {
	var c Checkpoint
	if len(msg) > MaxNote {
		return c, ErrTooLarge
	}
	// The origin is the text's first line; only keys for it can verify.
	origin, _, _ := bytes.Cut(msg, []byte("\n"))
	vs := o.verifiers(string(origin))
	if vs.err != nil {
		return c, vs.err
	}
	n, err := note.Open(msg, vs.list)
	var unv *note.UnverifiedNoteError
	switch {
	case errors.As(err, &unv):
		if hint := o.otherOrigin(msg, string(origin)); hint != "" {
			return c, fmt.Errorf("%w (origin %q): %s", ErrNotSigned, origin, hint)
		}
		return c, fmt.Errorf("%w (origin %q)", ErrNotSigned, origin)
	case err != nil:
		return c, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if c, err = Parse([]byte(n.Text)); err != nil {
		return c, err
	}
	for _, s := range n.Sigs {
		if pub, ok := vs.byHash[s.Hash]; ok && s.Name == c.Origin && KeyID(pub) == c.KeyID {
			return c, nil
		}
	}
	return c, fmt.Errorf("%w (key %s)", ErrKeyID, c.KeyID)
}

// otherOrigin names the one mistake behind most unverified checkpoints: a
// pinned key did sign it, but under another origin than the name it is
// pinned with (a server started without --name signs as
// logbook-server/HOSTNAME). It returns "" when no pinned key signed it.
func (o *opener) otherOrigin(msg []byte, origin string) string {
	for _, k := range o.keys {
		if k.Name == "" || k.Name == origin {
			continue
		}
		vkey, err := VerifierKey(origin, k.Pub)
		if err != nil {
			continue
		}
		v, err := note.NewVerifier(vkey)
		if err != nil {
			continue
		}
		if _, err := note.Open(msg, note.VerifierList(v)); err == nil {
			return fmt.Sprintf("it is signed by the pinned key (keyId %s), but under origin %q, not %q as the --checkpoint-key names it: the server ran without --name %s (or with another); run it with --name %s (or with no --name, its .vkey beside its key), or pin its key as SPKI PEM (KEY.pub), which accepts any origin", KeyID(k.Pub), origin, k.Name, k.Name, k.Name)
		}
	}
	return ""
}
