package record_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"math/big"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// reorder writes rec's top-level members in the given key order (keys it
// does not have are skipped), each member's text as it is.
func reorder(t *testing.T, rec []byte, keys ...string) []byte {
	t.Helper()
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.WriteByte('{')
	n := 0
	for _, k := range keys {
		m := v.Get(k)
		if m == nil {
			continue
		}
		if n > 0 {
			out.WriteByte(',')
		}
		n++
		out.WriteString(strconv.Quote(k) + ":")
		out.Write(rec[m.Start:m.End])
	}
	if n != len(v.Members) {
		t.Fatalf("reorder: %d of %d members written", n, len(v.Members))
	}
	out.WriteString("}\n")
	return out.Bytes()
}

// The member orders a record may come in. The sealer's (canonical) order
// has every member the envelope before the steps needs ahead of "steps":
// the signed bytes are hashed as the steps are read. signerIdentity after
// the steps is found out at the end (the record is read again); session
// or signature after the steps means the signed bytes are held whole.
var memberOrders = map[string][]string{
	"canonical":              {"chainTip", "session", "signature", "signerIdentity", "stepCount", "steps", "version"},
	"identity-after-steps":   {"chainTip", "session", "signature", "stepCount", "steps", "signerIdentity", "version"},
	"steps-first":            {"steps", "version", "stepCount", "signerIdentity", "signature", "session", "chainTip"},
	"session-after-steps":    {"version", "chainTip", "signature", "stepCount", "steps", "session", "signerIdentity"},
	"signature-after-steps":  {"session", "chainTip", "stepCount", "signerIdentity", "steps", "signature", "version"},
	"count-after-steps":      {"session", "chainTip", "signature", "signerIdentity", "steps", "stepCount", "version"},
	"version-between":        {"version", "signerIdentity", "session", "signature", "chainTip", "stepCount", "steps"},
	"identity-first-tip-end": {"signerIdentity", "session", "signature", "stepCount", "steps", "version", "chainTip"},
}

// TestVerifyAnyMemberOrder: a record verifies to the same verdict, record
// id and steps whatever the order of its top-level members, streamed or
// held, and each step reaches EachStep once; a change to signed bytes is
// SIGNATURE_INVALID with the same detail in every order.
func TestVerifyAnyMemberOrder(t *testing.T) {
	t.Parallel()
	pk := fixtureKey("fixture")
	good := assemble(baseSteps(), pk)
	withID := must(tamper.Apply(good, withIdentity("3003020101"), tamper.Resign(pk)))
	cases := map[string]struct {
		rec  []byte
		code format.Code
	}{
		"plain":                  {good, ""},
		"signerIdentity":         {withID, ""},
		"no steps":               {assemble(nil, pk), ""},
		"goal changed":           {must(tamper.Apply(withID, tamper.SetSession("goal", "else"))), format.SignatureInvalid},
		"identity changed":       {must(tamper.Apply(withID, withIdentity("3003020102"))), format.SignatureInvalid},
		"identity dropped":       {must(tamper.Apply(good, withIdentity("3003020101"))), format.SignatureInvalid},
		"relinked":               {must(tamper.Apply(good, tamper.EditSummary(2, "x"), tamper.Relink, tamper.FixCountAndTip)), format.SignatureInvalid},
		"flipped signature":      {flipSig(withID), format.SignatureInvalid},
		"S plus the group order": {sPlusL(t, withID), format.SignatureInvalid},
		"weak key":               {smallOrderForgery(good), format.SignatureInvalid},
		"other key":              {withKey(withID, fixtureKey("other").Public().(ed25519.PublicKey)), format.SignatureInvalid},
	}
	for name, c := range cases {
		want := record.Verify(c.rec, record.Options{})
		if want.Code != c.code {
			t.Fatalf("%s as sealed: %s %s, want %q", name, want.Code, want.Detail, c.code)
		}
		for order, keys := range memberOrders {
			rec := reorder(t, c.rec, keys...)
			steps, tops := 0, 0
			got := record.Verify(rec, record.Options{
				EachStep: func(i int, _ *strictjson.Value) {
					if i != steps {
						t.Errorf("%s, %s: step %d handed over after %d steps", name, order, i, steps)
					}
					steps++
				},
				Top: func(*strictjson.Value) { tops++ },
			})
			if got.Code != want.Code || got.Detail != want.Detail || got.RecordID != want.RecordID || got.StepCount != want.StepCount || got.KeyID != want.KeyID {
				t.Errorf("%s, %s: %s %q id %s, want %s %q id %s", name, order, got.Code, got.Detail, got.RecordID, want.Code, want.Detail, want.RecordID)
			}
			if n := int(intAt(t, c.rec, "stepCount")); steps != n || tops != 1 {
				t.Errorf("%s, %s: EachStep %d times (want %d), Top %d times", name, order, steps, n, tops)
			}
		}
	}
}

func intAt(t *testing.T, rec []byte, key string) int64 {
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.ParseInt(v.Get(key).Str, 10, 64)
	return n
}

// sPlusL replaces the signature's S by S + ℓ: the same point equation,
// a non-canonical scalar, refused by RFC 8032 verification.
func sPlusL(t *testing.T, rec []byte) []byte {
	v, _ := strictjson.Parse(rec, strictjson.Options{})
	sigHex, _ := v.Get("signature").GetString("value")
	sig, _ := hex.DecodeString(sigHex)
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	le := slices.Clone(sig[32:])
	slices.Reverse(le)
	s := new(big.Int).Add(new(big.Int).SetBytes(le), l)
	if s.BitLen() > 253 {
		t.Fatalf("S + ℓ does not fit: %d bits", s.BitLen())
	}
	out := s.FillBytes(make([]byte, 32))
	slices.Reverse(out)
	return textEdit(rec, sigHex, sigHex[:64]+hex.EncodeToString(out))
}

// verifyAlloc is what verifying a record of n steps allocates.
func verifyAlloc(t *testing.T, n int) (bytesAlloc, mallocs uint64) {
	base := baseSteps()
	steps := make([]chain.Step, 0, n)
	for i := 0; i < n; i++ {
		steps = append(steps, base[i%len(base)])
	}
	rec := assemble(steps, fixtureKey("fixture"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := record.Verify(rec, record.Options{})
	runtime.ReadMemStats(&after)
	if !r.OK {
		t.Fatal(r.Detail)
	}
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// TestVerifyAllocPerStep: verifying one more step allocates no more than
// a few hundred bytes, whatever the record's length: the signed bytes are
// hashed as they are made (nothing the size of the record is allocated)
// and a step's parse reuses the parser's memory. Measured as the
// difference between records of 10,000 and 30,000 steps, so the fixed
// costs cancel; deterministic (bytes allocated, not time or RSS).
func TestVerifyAllocPerStep(t *testing.T) {
	verifyAlloc(t, 10) // what is done once per process (the schema) is not per step
	b1, m1 := verifyAlloc(t, 10000)
	b2, m2 := verifyAlloc(t, 30000)
	perStep := float64(int64(b2)-int64(b1)) / 20000
	mallocsPerStep := float64(int64(m2)-int64(m1)) / 20000
	t.Logf("per step: %.0f bytes, %.2f allocations (10,000 steps: %d bytes in all)", perStep, mallocsPerStep, b1)
	if perStep > limitVerifyBytesPerStep {
		t.Fatalf("verify allocates %.0f bytes per step, want at most %d", perStep, limitVerifyBytesPerStep)
	}
	if mallocsPerStep > 4 {
		t.Fatalf("verify makes %.2f allocations per step, want at most 4", mallocsPerStep)
	}
}

const limitVerifyBytesPerStep = 160
