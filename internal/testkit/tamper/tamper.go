// Package tamper makes altered copies of a record, the way an attacker or
// an accident would: edit, drop, swap or cut steps, change the goal, or
// re-sign with another key. Tests and fixtures use it to show that each
// change is refused with the right code (spec §7).
package tamper

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Edit is a change made to a parsed record in place.
type Edit func(rec *strictjson.Value) error

// Apply parses rec, applies the edits, and writes it back in canonical form.
func Apply(rec []byte, edits ...Edit) ([]byte, error) {
	v, err := strictjson.Parse(rec, strictjson.Options{})
	if err != nil {
		return nil, err
	}
	for _, e := range edits {
		if err := e(v); err != nil {
			return nil, err
		}
	}
	out, err := jcs.Append(nil, v)
	return append(out, '\n'), err
}

func steps(rec *strictjson.Value) ([]strictjson.Value, error) {
	s := rec.Get("steps")
	if s == nil || s.Kind != strictjson.Array {
		return nil, fmt.Errorf("record has no steps array")
	}
	return s.Items, nil
}

func set(obj *strictjson.Value, key string, val strictjson.Value) {
	for i := range obj.Members {
		if obj.Members[i].Key == key {
			obj.Members[i].Value = val
			return
		}
	}
	obj.Members = append(obj.Members, strictjson.Member{Key: key, Value: val})
}

// EditSummary changes steps[i].summary and nothing else.
func EditSummary(i int, summary string) Edit {
	return func(rec *strictjson.Value) error {
		s, err := steps(rec)
		if err != nil || i >= len(s) {
			return fmt.Errorf("no step %d", i)
		}
		set(&s[i], "summary", strictjson.Str(summary))
		return nil
	}
}

// Drop removes steps[i].
func Drop(i int) Edit {
	return func(rec *strictjson.Value) error {
		s, err := steps(rec)
		if err != nil || i >= len(s) {
			return fmt.Errorf("no step %d", i)
		}
		st := rec.Get("steps")
		st.Items = append(s[:i:i], s[i+1:]...)
		return nil
	}
}

// Swap exchanges steps[i] and steps[j].
func Swap(i, j int) Edit {
	return func(rec *strictjson.Value) error {
		s, err := steps(rec)
		if err != nil || i >= len(s) || j >= len(s) {
			return fmt.Errorf("no step %d or %d", i, j)
		}
		s[i], s[j] = s[j], s[i]
		return nil
	}
}

// Renumber rewrites every seq to its index, as a careful forger would.
func Renumber(rec *strictjson.Value) error {
	s, err := steps(rec)
	if err != nil {
		return err
	}
	for i := range s {
		set(&s[i], "seq", strictjson.Int(int64(i)))
	}
	return nil
}

// Relink recomputes every prev and hash, as a forger without the key would.
func Relink(rec *strictjson.Value) error {
	s, err := steps(rec)
	if err != nil {
		return err
	}
	prev := strictjson.NullValue()
	for i := range s {
		set(&s[i], "prev", prev)
		h, err := chain.Hash(&s[i])
		if err != nil {
			return err
		}
		set(&s[i], "hash", strictjson.Str(h))
		prev = strictjson.Str(h)
	}
	return nil
}

// FixCountAndTip sets stepCount and chainTip to match the steps.
func FixCountAndTip(rec *strictjson.Value) error {
	s, err := steps(rec)
	if err != nil {
		return err
	}
	set(rec, "stepCount", strictjson.Int(int64(len(s))))
	tip := chain.EmptyTip
	if len(s) > 0 {
		tip, _ = s[len(s)-1].GetString("hash")
	}
	set(rec, "chainTip", strictjson.Str(tip))
	return nil
}

// CutTail removes the last n steps and leaves stepCount and chainTip alone.
func CutTail(n int) Edit {
	return func(rec *strictjson.Value) error {
		st := rec.Get("steps")
		if st == nil || n > len(st.Items) {
			return fmt.Errorf("cannot cut %d steps", n)
		}
		st.Items = st.Items[:len(st.Items)-n]
		return nil
	}
}

// SetSession changes one session field (goal, agent, …).
func SetSession(key, val string) Edit {
	return func(rec *strictjson.Value) error {
		s := rec.Get("session")
		if s == nil {
			return fmt.Errorf("record has no session")
		}
		set(s, key, strictjson.Str(val))
		return nil
	}
}

// SetTop replaces a top-level member with a raw JSON value.
func SetTop(key string, val strictjson.Value) Edit {
	return func(rec *strictjson.Value) error { set(rec, key, val); return nil }
}

// Resign signs the record as it now stands with priv, replacing the public
// key and signature: a record that verifies, but under the forger's key.
func Resign(priv ed25519.PrivateKey) Edit {
	return func(rec *strictjson.Value) error {
		spki := record.SPKI(priv.Public().(ed25519.PublicKey))
		sig := rec.Get("signature")
		if sig == nil {
			return fmt.Errorf("record has no signature")
		}
		pubHex := hex.EncodeToString(spki)
		set(sig, "publicKey", strictjson.Str(pubHex))
		signed, err := record.SignedBytes(record.Parts{
			Session: rec.Get("session"), Steps: rec.Get("steps"), StepCount: rec.Get("stepCount"),
			ChainTip: rec.Get("chainTip"), PublicKey: pubHex, SignerIdentity: rec.Get("signerIdentity"),
		})
		if err != nil {
			return err
		}
		set(sig, "value", strictjson.Str(hex.EncodeToString(ed25519.Sign(priv, signed))))
		return nil
	}
}
