package logproof

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// Policy is a C2SP tlog-policy: the logs trusted, the witnesses known, and
// the quorum of cosignatures a checkpoint needs.
type Policy struct {
	Logs      []Log
	Witnesses []Witness
	quorum    *node // nil: quorum none
}

// Log is a trusted log: its key (a C2SP signed-note verifier key, whose
// name is the log's origin) and an optional URL.
type Log struct {
	VKey, URL string
	Verifier  note.Verifier
	Pub       []byte // the Ed25519 public key
}

// Witness is a known witness: its name in the policy, its cosignature
// key, and an optional URL (its tlog-witness submission prefix).
type Witness struct {
	Name, VKey, URL string
	Verifier        note.Verifier // checks cosignature/v1 signatures
}

type node struct {
	witness *Witness
	k       int
	members []*node
}

// ErrPolicy is wrapped by every error ParsePolicy returns.
var ErrPolicy = errors.New("bad tlog-policy")

// Policy limits (the spec recommends supporting at least 32 of each).
const maxPolicyItems = 256

// ParsePolicy reads a policy file. Names and groups must be defined before
// they are used; duplicate keys, duplicate names, members named twice, a
// missing or repeated quorum line and control characters other than tab
// are errors.
func ParsePolicy(data []byte) (*Policy, error) {
	bad := func(line int, format string, a ...any) error {
		return fmt.Errorf("%w: line %d: %s", ErrPolicy, line, fmt.Sprintf(format, a...))
	}
	for _, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return nil, fmt.Errorf("%w: control character 0x%02x", ErrPolicy, c)
		}
	}
	p := &Policy{}
	names := map[string]*node{}
	pubs := map[string]bool{}
	quorums := 0
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(p.Logs)+len(p.Witnesses)+len(names) > maxPolicyItems {
			return nil, bad(n, "more than %d items", maxPolicyItems)
		}
		switch f[0] {
		case "log":
			if len(f) < 2 || len(f) > 3 {
				return nil, bad(n, "want: log VKEY [URL]")
			}
			v, err := note.NewVerifier(f[1])
			if err != nil {
				return nil, bad(n, "log key: %v", err)
			}
			pub, err := vkeyPub(f[1], 1)
			if err != nil {
				return nil, bad(n, "log key: %v", err)
			}
			if pubs[string(pub)] {
				return nil, bad(n, "duplicate key")
			}
			pubs[string(pub)] = true
			l := Log{VKey: f[1], Verifier: v, Pub: pub}
			if len(f) == 3 {
				l.URL = f[2]
			}
			p.Logs = append(p.Logs, l)
		case "witness":
			if len(f) < 3 || len(f) > 4 {
				return nil, bad(n, "want: witness NAME VKEY [URL]")
			}
			if err := newName(names, f[1]); err != nil {
				return nil, bad(n, "%v", err)
			}
			v, err := fnote.NewVerifierForCosignatureV1(f[2])
			if err != nil {
				return nil, bad(n, "witness key: %v", err)
			}
			pub, err := vkeyPub(f[2], 1, 4)
			if err != nil {
				return nil, bad(n, "witness key: %v", err)
			}
			if pubs[string(pub)] {
				return nil, bad(n, "duplicate key")
			}
			pubs[string(pub)] = true
			w := &Witness{Name: f[1], VKey: f[2], Verifier: v}
			if len(f) == 4 {
				w.URL = f[3]
			}
			p.Witnesses = append(p.Witnesses, *w)
			names[f[1]] = &node{witness: w}
		case "group":
			if len(f) < 4 {
				return nil, bad(n, "want: group NAME all|any|K MEMBER...")
			}
			if err := newName(names, f[1]); err != nil {
				return nil, bad(n, "%v", err)
			}
			g := &node{}
			seen := map[string]bool{}
			for _, m := range f[3:] {
				c, ok := names[m]
				if !ok {
					return nil, bad(n, "member %q is not defined above", m)
				}
				if seen[m] {
					return nil, bad(n, "member %q named twice", m)
				}
				seen[m] = true
				g.members = append(g.members, c)
			}
			switch f[2] {
			case "all":
				g.k = len(g.members)
			case "any":
				g.k = 1
			default:
				k, err := strconv.Atoi(f[2])
				if err != nil || k < 1 || k > len(g.members) || strconv.Itoa(k) != f[2] {
					return nil, bad(n, "threshold %q: want all, any or 1..%d", f[2], len(g.members))
				}
				g.k = k
			}
			names[f[1]] = g
		case "quorum":
			if len(f) != 2 {
				return nil, bad(n, "want: quorum NAME")
			}
			if quorums++; quorums > 1 {
				return nil, bad(n, "a second quorum line")
			}
			if f[1] == "none" {
				continue
			}
			q, ok := names[f[1]]
			if !ok {
				return nil, bad(n, "quorum %q is not defined above", f[1])
			}
			p.quorum = q
		default:
			return nil, bad(n, "unknown keyword %q", f[0])
		}
	}
	if quorums == 0 {
		return nil, fmt.Errorf("%w: no quorum line", ErrPolicy)
	}
	return p, nil
}

func newName(names map[string]*node, name string) error {
	switch name {
	case "none", "all", "any", "log", "witness", "group", "quorum":
		return fmt.Errorf("%q is a reserved word", name)
	}
	if _, dup := names[name]; dup {
		return fmt.Errorf("name %q defined twice", name)
	}
	return nil
}

// vkeyPub returns the 32-byte Ed25519 key a verifier key wraps, when its
// algorithm byte is one of algs.
func vkeyPub(vkey string, algs ...byte) ([]byte, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		return nil, errors.New("want NAME+HASH+KEY")
	}
	raw, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) != 33 || bytes.IndexByte(algs, raw[0]) < 0 {
		return nil, errors.New("not an Ed25519 key of the right type")
	}
	return raw[1:], nil
}

// Quorum reports whether the cosigned witnesses (by policy name) satisfy
// the quorum.
func (p *Policy) Quorum(cosigned map[string]bool) bool {
	if p.quorum == nil {
		return true
	}
	var sat func(*node) bool
	sat = func(n *node) bool {
		if n.witness != nil {
			return cosigned[n.witness.Name]
		}
		c := 0
		for _, m := range n.members {
			if sat(m) {
				c++
			}
		}
		return c >= n.k
	}
	return sat(p.quorum)
}

// Cosigned returns the names of the policy's witnesses whose cosignature
// on the signed checkpoint verifies.
func (p *Policy) Cosigned(checkpoint []byte) map[string]bool {
	out := map[string]bool{}
	for _, w := range p.Witnesses {
		if n, err := note.Open(checkpoint, note.VerifierList(w.Verifier)); err == nil && len(n.Sigs) == 1 {
			out[w.Name] = true
		}
	}
	return out
}
