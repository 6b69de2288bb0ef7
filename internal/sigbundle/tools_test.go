package sigbundle_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/sigbundle"
)

// The real tools, built once per test run from tools/sigstore-check's
// go.mod (a module of its own: cosign's and sigstore-go's dependencies
// stay out of the main module's): cosign v3 and sigstore-check
// (sigstore-go's verifier and in-toto's Go bindings).
var (
	toolsOnce sync.Once
	toolsDir  string
	toolsErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if toolsDir != "" {
		os.RemoveAll(toolsDir)
	}
	os.Exit(code)
}

// tools builds them (a cold build of cosign is minutes on two cores; the
// go build cache makes later runs quick).
func tools(t *testing.T) (cosign, check string) {
	t.Helper()
	toolsOnce.Do(func() {
		if toolsDir, toolsErr = os.MkdirTemp("", "sigstore-tools"); toolsErr != nil {
			return
		}
		mod, err := filepath.Abs("../../tools/sigstore-check")
		if err != nil {
			toolsErr = err
			return
		}
		for _, b := range [][]string{
			{"-o", filepath.Join(toolsDir, "cosign"), "github.com/sigstore/cosign/v3/cmd/cosign"},
			{"-o", filepath.Join(toolsDir, "sigstore-check"), "."},
		} {
			cmd := exec.Command("go", append([]string{"build"}, b...)...)
			cmd.Dir = mod
			// go.sum is complete: nothing is resolved anew here.
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
			if out, err := cmd.CombinedOutput(); err != nil {
				toolsErr = fmt.Errorf("go build %s: %v\n%s", b[2], err, out)
				return
			}
		}
	})
	if toolsErr != nil {
		t.Fatal(toolsErr)
	}
	return filepath.Join(toolsDir, "cosign"), filepath.Join(toolsDir, "sigstore-check")
}

// verifiers runs cosign verify-blob-attestation and sigstore-check on a
// bundle about an artifact; each result is nil when the tool accepts.
type verifiers struct {
	cosign, check, dir, pub string
	commits                 []string
	typ                     string // the predicate type asked for; "" sigbundle.PredicateType
}

func (v verifiers) run(bundle, artifact []byte) (cosignErr, checkErr error) {
	b := filepath.Join(v.dir, "bundle.json")
	a := filepath.Join(v.dir, "record.json")
	if err := os.WriteFile(b, bundle, 0o644); err != nil {
		return err, err
	}
	if err := os.WriteFile(a, artifact, 0o644); err != nil {
		return err, err
	}
	run := func(name string, args ...string) error {
		cmd := exec.Command(name, args...)
		// cosign keeps a cache under $HOME; offline with --key it
		// fetches nothing.
		cmd.Env = append(os.Environ(), "HOME="+v.dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
		}
		if name == v.cosign && !bytes.Contains(out, []byte("Verified OK")) {
			return fmt.Errorf("cosign exited 0 without Verified OK: %s", out)
		}
		return nil
	}
	typ := v.typ
	if typ == "" {
		typ = sigbundle.PredicateType
	}
	cosignErr = run(v.cosign, "verify-blob-attestation", "--key", v.pub, "--bundle", b,
		"--type", typ, "--new-bundle-format", "--insecure-ignore-tlog", a)
	args := []string{"--bundle", b, "--key", v.pub, "--artifact", a, "--type", typ}
	for _, c := range v.commits {
		args = append(args, "--commit", c)
	}
	checkErr = run(v.check, args...)
	return cosignErr, checkErr
}

// TestRealTools: cosign and sigstore-go accept the bundle of a sealed
// session, and refuse it when a byte changes in any of its fields or in
// the record; in-toto's bindings read its statement (sigstore-check).
func TestRealTools(t *testing.T) {
	t.Parallel()
	cosign, check := tools(t)
	dir := t.TempDir()
	_, pubPEM, err := keys.MarshalPair(attestKey, attestPub)
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(dir, "attestor.pub")
	if err := os.WriteFile(pub, pubPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := sealed(t, "s-tools", c1, c2)
	good, err := sigbundle.Sign(factsOf(t, rec), attestKey)
	if err != nil {
		t.Fatal(err)
	}
	v := verifiers{cosign: cosign, check: check, dir: dir, pub: pub, commits: []string{c1, c2}}
	if ce, se := v.run(good, rec); ce != nil || se != nil {
		t.Fatalf("the good bundle: cosign: %v; sigstore-go: %v", ce, se)
	}
	// Asked for another predicate type (a v2 of logbook's): refused.
	v2 := v
	v2.typ = strings.TrimSuffix(sigbundle.PredicateType, "v1") + "v2"
	if ce, se := v2.run(good, rec); ce == nil || se == nil {
		t.Errorf("asked for %s: cosign %v, sigstore-check %v; want both to refuse", v2.typ, ce, se)
	}
	// A commit the statement does not name is refused (in-toto's view).
	if _, se := (verifiers{cosign: cosign, check: check, dir: dir, pub: pub, commits: []string{c1}}).run(good, rec); se == nil {
		t.Error("sigstore-check accepted a statement that names a commit it was not asked for")
	}

	for _, f := range flips(t, good) {
		ce, se := v.run(f.bundle, rec)
		_, oe := sigbundle.Open(f.bundle, []ed25519.PublicKey{attestPub})
		if se == nil || oe == nil {
			t.Errorf("%s: sigstore-go: %v; logbook: %v; want both to refuse", f.name, se, oe)
		}
		// cosign --key trusts the key it is given and never reads the
		// hint (pkg/cosign/verify.go: the key material ignores it),
		// which the signature does not cover: a changed hint is
		// refused by sigstore-go and logbook only.
		if f.field == "hint" {
			if ce != nil {
				t.Errorf("%s: cosign refused (%v): cosign reads the hint now; docs/attestation.md says it does not", f.name, ce)
			}
		} else if ce == nil {
			t.Errorf("%s: cosign accepted it", f.name)
		}
	}
	// testdata/attestation's bundle of a logged, server-sealed record,
	// as its README has cosign check it, and its must-refuse twins.
	att := "../../testdata/attestation/"
	fix := verifiers{cosign: cosign, check: check, dir: dir, pub: att + "attestor.pub"}
	s1, err := os.ReadFile("../../testdata/bundles/logged/s1.record.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, accept := range map[string]bool{"good_s1": true, "fail_ATTEST_INVALID_flipped_sig": false, "fail_ATTEST_INVALID_other_record": false} {
		b, err := os.ReadFile(att + name + ".bundle.json")
		if err != nil {
			t.Fatal(err)
		}
		if ce, se := fix.run(b, s1); (ce == nil) != accept || (se == nil) != accept {
			t.Errorf("%s: cosign %v, sigstore-go %v; want accepted %v", name, ce, se, accept)
		}
	}

	// The record itself, one byte changed: its subject digest fails.
	other := bytes.Clone(rec)
	other[len(other)/2] ^= 1
	if ce, se := v.run(good, other); ce == nil || se == nil {
		t.Errorf("a record with one byte changed: cosign %v, sigstore-go %v; want both to refuse", ce, se)
	}
}

type flip struct {
	name, field string
	bundle      []byte
}

// flips changes one byte of each field of the bundle, at several places
// in the long ones (the first, the middle and near the end of the
// payload and the signature, clear of base64's last, padded group): a
// letter for another of base64's alphabet, or of the text.
func flips(t *testing.T, good []byte) []flip {
	t.Helper()
	var out []flip
	field := func(name, key string, at ...float64) {
		k := []byte(`"` + key + `":"`)
		i := bytes.Index(good, k)
		if i < 0 {
			t.Fatalf("no %s in the bundle", key)
		}
		from := i + len(k)
		to := from + bytes.IndexByte(good[from:], '"')
		for _, a := range at {
			p := from + int(a*float64(to-from-5))
			b := bytes.Clone(good)
			if b[p] == 'A' {
				b[p] = 'B'
			} else {
				b[p] = 'A'
			}
			out = append(out, flip{name: fmt.Sprintf("%s byte %d of %d", name, p-from, to-from), field: name, bundle: b})
		}
	}
	field("payload", "payload", 0, 0.3, 0.5, 0.8, 1)
	field("sig", "sig", 0, 0.5, 1)
	field("hint", "hint", 0, 1)
	field("mediaType", "mediaType", 0.9)
	field("payloadType", "payloadType", 0.5)
	// A member's name: "payload" read as "paylOad" is a bundle without
	// one.
	b := bytes.Replace(bytes.Clone(good), []byte(`"payload":`), []byte(`"paylOad":`), 1)
	out = append(out, flip{name: "the payload's member name", field: "name", bundle: b})
	if !strings.Contains(string(good), `"payloadType":"application/vnd.in-toto+json"`) {
		t.Fatal("the bundle's payloadType is not in-toto's")
	}
	return out
}
