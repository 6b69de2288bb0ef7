package e2e

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// recGen makes records with random content for the differential test:
// sealed ones (record.Assemble, sometimes with a recorder, a signer
// identity or a timestamp token added and signed again), the same records
// written out with other whitespace, key order and escapes, and damaged
// copies. Text is drawn to hit what implementations get wrong: control
// characters, U+2028, astral characters, keys whose UTF-16 order differs
// from their code-point order, -0, integers at ±(2^53-1).
type recGen struct{ r *rand.Rand }

func newRecGen(seed uint64) *recGen { return &recGen{rand.New(rand.NewPCG(seed, 0x6c6f67626f6f6b))} }

var trickyRunes = []rune{0x00, 0x1f, 0x7f, 0x80, 0x9f, 0xad, 0x2028, 0x2029, 0xfeff, 0x200b, 0x202e, 0x2066,
	'"', '\\', '/', '<', '>', '&', '\'', 0xfffd, 0xfffe, 0xffff, 0xe000, 0xd7ff, 0x10000, 0x1f600, 0x1d11e, 0x10ffff}

// char draws one Unicode scalar value.
func (g *recGen) char() rune {
	r := g.r
	switch r.IntN(12) {
	case 0:
		return rune(r.IntN(0x20)) // C0 controls
	case 1, 2:
		return trickyRunes[r.IntN(len(trickyRunes))]
	case 3:
		return rune(0x80 + r.IntN(0x780)) // two UTF-8 bytes
	case 4:
		c := rune(0x800 + r.IntN(0x10000-0x800)) // three bytes, no surrogates
		if c >= 0xd800 && c <= 0xdfff {
			c += 0x800
		}
		return c
	case 5:
		return rune(0x10000 + r.IntN(0x100000)) // astral: a surrogate pair in UTF-16
	default:
		return rune(0x20 + r.IntN(0x5f)) // printable ASCII
	}
}

func (g *recGen) str(max int) string {
	n := g.r.IntN(max + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(g.char())
	}
	return b.String()
}

// keyPool holds keys whose order differs between UTF-16 code units, code
// points and UTF-8 bytes, and near-duplicates.
var keyPool = []string{"", "a", "A", "aa", "a\x00", "b", "é", "e\u0301", "\ue000", "\uffff", "\U00010000",
	"\U0001F600", "\u2028", "__proto__", "constructor", "hash", "toString", "1", "10", "2", "-0"}

func (g *recGen) key() string {
	if g.r.IntN(3) == 0 {
		return keyPool[g.r.IntN(len(keyPool))]
	}
	return g.str(8)
}

func (g *recGen) integer() int64 {
	const max = 1<<53 - 1
	switch g.r.IntN(6) {
	case 0:
		return []int64{0, 1, -1, max, -max, max - 1, 1 << 31, -1 << 31}[g.r.IntN(8)]
	case 1:
		return g.r.Int64N(2*max+1) - max
	default:
		return g.r.Int64N(2000) - 1000
	}
}

// value draws a JSON value whose nesting is at most depth.
func (g *recGen) value(depth int) strictjson.Value {
	n := 6
	if depth > 0 {
		n = 8
	}
	switch g.r.IntN(n) {
	case 0:
		return strictjson.NullValue()
	case 1:
		return strictjson.Bool(g.r.IntN(2) == 0)
	case 2, 3:
		return strictjson.Int(g.integer())
	case 4, 5:
		return strictjson.Str(g.str(12))
	case 6:
		items := make([]strictjson.Value, g.r.IntN(4))
		for i := range items {
			items[i] = g.value(depth - 1)
		}
		return strictjson.Arr(items...)
	default:
		return g.object(depth-1, 4)
	}
}

// object draws an object of up to max members with distinct keys.
func (g *recGen) object(depth, max int) strictjson.Value {
	o := strictjson.Obj()
	seen := map[string]bool{}
	for n := g.r.IntN(max + 1); n > 0; n-- {
		k := g.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		o.Members = append(o.Members, strictjson.Member{Key: k, Value: g.value(depth)})
	}
	return o
}

// deep is data nested to the given depth (arrays and objects).
func (g *recGen) deep(depth int) strictjson.Value {
	v := strictjson.Int(1)
	for i := 0; i < depth; i++ {
		if g.r.IntN(2) == 0 {
			v = strictjson.Arr(v)
		} else {
			v = strictjson.Obj(strictjson.Member{Key: g.key(), Value: v})
		}
	}
	return v
}

func (g *recGen) instant() string {
	t := time.Date(g.r.IntN(10000), time.Month(1+g.r.IntN(12)), 1+g.r.IntN(31),
		g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), 0, time.UTC)
	switch g.r.IntN(3) {
	case 0:
		t = t.Add(time.Duration(g.r.IntN(1e9)))
	case 1:
		t = t.Add(time.Duration(g.r.IntN(1000)) * time.Millisecond)
	}
	return instant.Format(t)
}

func (g *recGen) digests() []string {
	out := make([]string, g.r.IntN(4))
	for i := range out {
		out[i] = randHex(g.r, 32)
	}
	return out
}

func randHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return hex.EncodeToString(b)
}

var stepKinds = []string{"exec", "edit", "read", "write", "tool_call", "claim", "note", "gate"}

// sealed returns a freshly signed record with random content and the key
// that signed it.
func (g *recGen) sealed() ([]byte, ed25519.PrivateKey, error) {
	seed := sha256.Sum256([]byte(fmt.Sprint(g.r.Uint64())))
	priv := ed25519.NewKeyFromSeed(seed[:])
	n := g.r.IntN(12)
	if g.r.IntN(10) == 0 {
		n = 40 + g.r.IntN(60)
	}
	var steps [][]byte
	prev := ""
	for i := 0; i < n; i++ {
		data := g.object(3, 6)
		if g.r.IntN(40) == 0 {
			// Nesting at the limit: the record is 1 deep, steps 2, a step 3,
			// data 4; the innermost container lands at 63 or 64 (accepted) or
			// 65 (NOT_JSON).
			data = strictjson.Obj(strictjson.Member{Key: "deep", Value: g.deep(59 + g.r.IntN(3))})
		}
		st := chain.Step{At: g.instant(), Kind: stepKinds[g.r.IntN(len(stepKinds))], Summary: g.str(40),
			Data: data, Inputs: g.digests(), Outputs: g.digests()}
		canon, h, err := chain.Link(st, int64(i), prev)
		if err != nil {
			return nil, nil, err
		}
		steps = append(steps, canon)
		prev = h
	}
	stepsJSON := append(append([]byte("["), bytes.Join(steps, []byte(","))...), ']')
	id := g.str(16)
	if id == "" {
		id = "s"
	}
	sess := record.Session{ID: id, Agent: g.str(20), Goal: g.str(30), Cwd: g.str(20), StartedAt: g.instant(), EndedAt: g.instant()}
	rec, err := record.Assemble(sess, stepsJSON, n, prev, priv)
	if err != nil {
		return nil, nil, err
	}
	// Optional members, then signed again with the same key.
	var edits []tamper.Edit
	if g.r.IntN(6) == 0 {
		edits = append(edits, func(v *strictjson.Value) error {
			s := v.Get("session")
			s.Members = append(s.Members, strictjson.Member{Key: "recorder", Value: strictjson.Obj(
				strictjson.Member{Key: "name", Value: strictjson.Str(g.str(10))},
				strictjson.Member{Key: "version", Value: strictjson.Str(g.str(6))},
				strictjson.Member{Key: "sha256", Value: strictjson.Str(randHex(g.r, 32))})})
			return nil
		})
	}
	if g.r.IntN(6) == 0 {
		certs := make([]string, 1+g.r.IntN(3))
		for i := range certs {
			certs[i] = g.der()
		}
		edits = append(edits, tamper.SetTop("signerIdentity", strictjson.Obj(
			strictjson.Member{Key: "certificates", Value: strictjson.StrArr(certs)})))
	}
	if g.r.IntN(6) == 0 {
		tok := g.der()
		edits = append(edits, func(v *strictjson.Value) error {
			s := v.Get("signature")
			s.Members = append(s.Members, strictjson.Member{Key: "rfc3161", Value: strictjson.Str(tok)})
			return nil
		})
	}
	if len(edits) > 0 {
		rec, err = tamper.Apply(rec, append(edits, tamper.Resign(priv))...)
	}
	return rec, priv, err
}

// der returns the hex of a DER-like element: mostly a well-formed SEQUENCE
// (short and long lengths), sometimes one the shape check must refuse
// (another tag, indefinite or non-minimal length, bytes after it, cut).
func (g *recGen) der() string {
	body := make([]byte, []int{0, 1, 5, 127, 128, 200, 255, 256, 300}[g.r.IntN(9)])
	for i := range body {
		body[i] = byte(g.r.IntN(256))
	}
	var length []byte
	switch n := len(body); {
	case n < 0x80:
		length = []byte{byte(n)}
	case n < 0x100:
		length = []byte{0x81, byte(n)}
	default:
		length = []byte{0x82, byte(n >> 8), byte(n)}
	}
	tag := byte(0x30)
	if g.r.IntN(8) == 0 {
		switch g.r.IntN(6) {
		case 0:
			tag = []byte{0x31, 0x10, 0x04, 0x70, 0xbf, 0x1f}[g.r.IntN(6)]
		case 1:
			length = []byte{0x80} // indefinite
		case 2:
			length = append([]byte{0x80 | byte(len(length)), 0}, length...) // leading zero
			length[0] = 0x80 | byte(len(length)-1)
		case 3:
			if len(body) < 0x80 {
				length = []byte{0x81, byte(len(body))} // long form for a short length
			}
		case 4:
			body = append(body, 0) // a byte after the element
			return hex.EncodeToString(append(append([]byte{tag}, length...), body...))
		case 5:
			if len(body) > 0 {
				body = body[:len(body)-1] // cut
				return hex.EncodeToString(append(append([]byte{tag}, length...), body...))
			}
		}
	}
	return hex.EncodeToString(append(append([]byte{tag}, length...), body...))
}

// reencode writes a record out again with the same content but other
// bytes: random whitespace, member order and escapes, and 0 sometimes as
// -0. The canonical form, and so every verdict and id, must not change.
func (g *recGen) reencode(rec []byte) ([]byte, error) {
	v, err := strictjson.Parse(rec, strictjson.Options{})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	g.write(&b, v)
	return b.Bytes(), nil
}

func (g *recGen) space(b *bytes.Buffer) {
	for n := g.r.IntN(4) - 1; n > 0; n-- {
		b.WriteByte(" \t\n\r"[g.r.IntN(4)])
	}
}

func (g *recGen) write(b *bytes.Buffer, v *strictjson.Value) {
	switch v.Kind {
	case strictjson.Null:
		b.WriteString("null")
	case strictjson.True:
		b.WriteString("true")
	case strictjson.False:
		b.WriteString("false")
	case strictjson.Number:
		if v.Str == "0" && g.r.IntN(2) == 0 {
			b.WriteString("-0")
		} else {
			b.WriteString(v.Str)
		}
	case strictjson.String:
		g.writeString(b, v.Str)
	case strictjson.Array:
		b.WriteByte('[')
		for i := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			g.space(b)
			g.write(b, &v.Items[i])
			g.space(b)
		}
		b.WriteByte(']')
	case strictjson.Object:
		b.WriteByte('{')
		order := g.r.Perm(len(v.Members))
		for n, i := range order {
			if n > 0 {
				b.WriteByte(',')
			}
			g.space(b)
			g.writeString(b, v.Members[i].Key)
			g.space(b)
			b.WriteByte(':')
			g.space(b)
			g.write(b, &v.Members[i].Value)
			g.space(b)
		}
		b.WriteByte('}')
	}
}

func (g *recGen) writeString(b *bytes.Buffer, s string) {
	hex4 := func(u rune) {
		f := "\\u%04x"
		if g.r.IntN(2) == 0 {
			f = "\\u%04X"
		}
		fmt.Fprintf(b, f, u)
	}
	short := map[rune]string{'"': `\"`, '\\': `\\`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	b.WriteByte('"')
	for _, c := range s {
		must := c < 0x20 || c == '"' || c == '\\'
		switch {
		case (must || g.r.IntN(5) == 0) && short[c] != "" && g.r.IntN(2) == 0:
			b.WriteString(short[c])
		case c == '/' && g.r.IntN(3) == 0:
			b.WriteString(`\/`)
		case must || g.r.IntN(5) == 0:
			if c >= 0x10000 {
				c -= 0x10000
				hex4(0xd800 + c>>10)
				hex4(0xdc00 + c&0x3ff)
			} else {
				hex4(c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
}

// damage returns a changed copy of rec: bytes flipped, replaced, cut or
// inserted; steps edited, dropped, swapped, renumbered or relinked; the
// key swapped for a weak one; or the record signed again by other.
func (g *recGen) damage(rec []byte, other ed25519.PrivateKey) []byte {
	r := g.r
	switch r.IntN(3) {
	case 0: // bytes
		out := slices.Clone(rec)
		for n := 1 + r.IntN(3); n > 0 && len(out) > 0; n-- {
			i := r.IntN(len(out))
			switch r.IntN(5) {
			case 0:
				out[i] ^= 1 << r.IntN(8)
			case 1:
				out[i] = `"\{}[],:0-1.eEaAfF`[r.IntN(18)]
			case 2:
				out = slices.Delete(out, i, i+1)
			case 3:
				out = slices.Insert(out, i, []byte{0x00, 0x80, 0xc0, 0xed, 0xf4, 0xff, ' ', '\n'}[r.IntN(8)])
			case 4:
				out = out[:i]
			}
		}
		return out
	case 1: // a weak or foreign key in place of the signer's
		weak := []string{
			"0100000000000000000000000000000000000000000000000000000000000000", // the neutral element
			"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p-1, order 2
			"0000000000000000000000000000000000000000000000000000000000000000", // y = 0, order 4
			"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
			"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p: non-canonical
			"0100000000000000000000000000000000000000000000000000000000000080", // x = 0 with the sign bit
			randHex(r, 32), // about half of these are off the curve
		}
		k := weak[r.IntN(len(weak))]
		i := bytes.Index(rec, []byte(record.SPKIPrefix))
		if i < 0 {
			return rec
		}
		out := slices.Clone(rec)
		copy(out[i+len(record.SPKIPrefix):], k)
		return out
	default: // steps and fields, through the tamper package
		v, err := strictjson.Parse(rec, strictjson.Options{})
		if err != nil {
			return rec
		}
		n := len(v.Get("steps").Items)
		var edits []tamper.Edit
		for k := 1 + r.IntN(2); k > 0; k-- {
			switch r.IntN(8) {
			case 0:
				if n > 0 {
					edits = append(edits, tamper.EditSummary(r.IntN(n), g.str(10)))
				}
			case 1:
				if n > 0 {
					edits = append(edits, tamper.Drop(r.IntN(n)))
					n--
				}
			case 2:
				if n > 1 {
					edits = append(edits, tamper.Swap(r.IntN(n), r.IntN(n)))
				}
			case 3:
				edits = append(edits, tamper.Renumber, tamper.Relink)
			case 4:
				if n > 0 {
					c := 1 + r.IntN(n)
					edits = append(edits, tamper.CutTail(c))
					n -= c
				}
			case 5:
				edits = append(edits, tamper.SetSession("goal", g.str(10)))
			case 6:
				edits = append(edits, tamper.FixCountAndTip)
			case 7:
				edits = append(edits, tamper.Resign(other))
			}
		}
		out, err := tamper.Apply(rec, edits...)
		if err != nil || !utf8.Valid(out) {
			return rec
		}
		return out
	}
}
