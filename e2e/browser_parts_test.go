package e2e

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestBrowserParts holds the page's building blocks to the shared corpora
// and to the Go code, one part at a time, so that a disagreement in the
// differential test can be traced: SHA-256, the canonical form (RFC 8785
// vectors), the weak-key check (random 32-byte strings and the torsion
// points, against record.WeakKey) and Ed25519 verification (Wycheproof and
// the 1024 RFC 8032 known answers).
func TestBrowserParts(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	r := rand.New(rand.NewPCG(1, 2))

	t.Run("sha256", func(t *testing.T) {
		var inputs, want []string
		for n := 0; n < 300; n++ {
			inputs = append(inputs, randHex(r, n))
		}
		inputs = append(inputs, randHex(r, 1<<16+13))
		for _, in := range inputs {
			raw, _ := hex.DecodeString(in)
			sum := sha256.Sum256(raw)
			want = append(want, hex.EncodeToString(sum[:]))
		}
		got := evalJSON[[]string](t, b, `(inputs) => inputs.map((h) => logbook.sha256(logbook.unhex(h)))`, inputs)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("sha256 of %d bytes: page %s, Go %s", len(inputs[i])/2, got[i], want[i])
			}
		}
	})

	t.Run("jcs", func(t *testing.T) {
		files := corpora.Glob(t, "corpora/jcs/input/*.json", "RFC 8785 vectors in the page's canonical writer")
		if len(files) != 6 {
			t.Fatalf("found %d RFC 8785 vectors, want 6", len(files))
		}
		for _, f := range files {
			in, _ := os.ReadFile(f)
			want, err := os.ReadFile(filepath.Join(filepath.Dir(f), "..", "output", filepath.Base(f)))
			if err != nil {
				t.Fatal(err)
			}
			// The vectors hold floats, which no record may (spec §2): the
			// canonical writer still formats them as ECMAScript does.
			got := evalJSON[string](t, b, `(h) => logbook.hex(logbook.jcs.canonicalize(logbook.json.parse(logbook.unhex(h), 64)))`, hex.EncodeToString(in))
			if got != hex.EncodeToString(bytes.TrimRight(want, "\n")) {
				t.Errorf("%s: page canonical form differs:\n got %s\nwant %x", filepath.Base(f), got, want)
			}
		}
	})

	t.Run("weak keys", func(t *testing.T) {
		keys := []string{
			"0100000000000000000000000000000000000000000000000000000000000000",
			"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
			"0000000000000000000000000000000000000000000000000000000000000000",
			"0000000000000000000000000000000000000000000000000000000000000080",
			"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
			"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
			"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
			"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
			"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
			"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
			"0100000000000000000000000000000000000000000000000000000000000080",
			"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", // RFC 8032 test 1: sound
		}
		const named = 11 // the keys above that one are all weak
		for i := 0; i < 2000; i++ {
			keys = append(keys, randHex(r, 32))
		}
		got := evalJSON[[]string](t, b, `(keys) => keys.map((h) => logbook.ed25519.weakKey(logbook.unhex(h)))`, keys)
		weak := 0
		for i, k := range keys {
			pk, _ := hex.DecodeString(k)
			want := record.WeakKey(pk)
			if (got[i] == "") != (want == "") || (i < named) != (got[i] != "") && i <= named {
				t.Errorf("key %s: page says %q, Go says %q", k, got[i], want)
			}
			if want != "" {
				weak++
			}
		}
		if weak < 900 || weak > 1300 { // about half of random strings are not curve points
			t.Errorf("%d of %d keys weak", weak, len(keys))
		}
	})

	t.Run("ed25519", func(t *testing.T) {
		type vector struct {
			Pk, Msg, Sig string
			Want         bool
			Name         string
		}
		var vectors []vector
		raw, err := os.ReadFile(corpora.Require(t, "corpora/ed25519/ed25519_test.json", "Ed25519 vectors in the page's verifier"))
		if err != nil {
			t.Fatal(err)
		}
		var suite struct {
			TestGroups []struct {
				PublicKey struct{ Pk string } `json:"publicKey"`
				Tests     []struct {
					TcID   int    `json:"tcId"`
					Msg    string `json:"msg"`
					Sig    string `json:"sig"`
					Result string `json:"result"`
				} `json:"tests"`
			} `json:"testGroups"`
		}
		if err := json.Unmarshal(raw, &suite); err != nil {
			t.Fatal(err)
		}
		for _, g := range suite.TestGroups {
			for _, tc := range g.Tests {
				vectors = append(vectors, vector{g.PublicKey.Pk, tc.Msg, tc.Sig, tc.Result == "valid", "wycheproof " + itoa(tc.TcID)})
			}
		}
		lines, err := os.ReadFile(corpora.Require(t, "corpora/ed25519/sign.input", "RFC 8032 known answers in the page's verifier"))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
			f := strings.Split(line, ":")
			vectors = append(vectors, vector{f[1], f[2], f[3][:128], true, "sign.input " + itoa(i+1)})
		}
		if len(vectors) != 151+1024 {
			t.Fatalf("%d vectors, want 1175", len(vectors))
		}
		got := evalJSON[[]bool](t, b, `async (vs) => {
			const out = [];
			for (const v of vs) {
				const pk = logbook.unhex(v.Pk), sig = logbook.unhex(v.Sig), msg = logbook.unhex(v.Msg);
				out.push(logbook.ed25519.weakKey(pk) === '' && sig.length === 64 && logbook.ed25519.scalarCanonical(sig) &&
					await logbook.ed25519.verify(pk, sig, msg));
			}
			return out;
		}`, vectors)
		for i, v := range vectors {
			pk, _ := hex.DecodeString(v.Pk)
			msg, _ := hex.DecodeString(v.Msg)
			sig, _ := hex.DecodeString(v.Sig)
			goOK := record.WeakKey(pk) == "" && len(sig) == ed25519.SignatureSize && ed25519.Verify(pk, msg, sig)
			if got[i] != goOK || got[i] != v.Want {
				t.Errorf("%s: page %v, Go %v, expected %v", v.Name, got[i], goOK, v.Want)
			}
		}
	})
	b.checkQuiet(t)
}

// evalJSON calls the JavaScript function fn with arg (as JSON) in the page.
func evalJSON[T any](t *testing.T, b *browser, fn string, arg any) T {
	t.Helper()
	js, err := json.Marshal(arg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := evalJS[T](b, `(`+fn+`)(`+string(js)+`)`)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func itoa(n int) string { return strconv.Itoa(n) }
