package sigbundle_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/sigbundle"
	"github.com/logbook-project/logbook/internal/strictjson"
)

const (
	c1 = "1111111111111111111111111111111111111111"
	c2 = "2222222222222222222222222222222222222222"
)

var attestPub = attestKey.Public().(ed25519.PublicKey)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	rec := sealed(t, "s-round", c1, c2)
	f := factsOf(t, rec)
	if f.SessionID != "s-round" || len(f.Commits) != 2 || f.Commits[0] != c1 || f.Commits[1] != c2 || f.Level != "local" || f.StepCount != 5 {
		t.Fatalf("facts %+v", f)
	}
	b, err := sigbundle.Sign(f, attestKey)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := sigbundle.Sign(f, attestKey)
	if !bytes.Equal(b, again) {
		t.Error("two signings of the same facts differ: the bytes are not canonical")
	}
	v, err := sigbundle.Check(b, []ed25519.PublicKey{attestPub}, f)
	if err != nil {
		t.Fatal(err)
	}
	if v.AttestorKeyID == "" || v.RecordSHA256 != sigbundle.RecordDigest(rec) {
		t.Errorf("verified %+v", v)
	}
	// The statement is the in-toto shape, with the predicate type.
	st := statement(t, b)
	if s, _ := st.GetString("_type"); s != sigbundle.StatementType {
		t.Errorf("_type %q", s)
	}
	if s, _ := st.GetString("predicateType"); s != sigbundle.PredicateType {
		t.Errorf("predicateType %q", s)
	}
	if n := len(st.Get("subject").Items); n != 3 {
		t.Errorf("%d subjects, want the record and two commits", n)
	}
}

// statement decodes a bundle's payload.
func statement(t *testing.T, b []byte) *strictjson.Value {
	t.Helper()
	v, err := strictjson.Parse(b, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := v.Get("dsseEnvelope").GetString("payload")
	body, err := base64.StdEncoding.DecodeString(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := strictjson.Parse(body, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCheckRefuses: a bundle that says anything else of the record than
// this check finds is refused, with its code.
func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	rec := sealed(t, "s-check", c1)
	want := factsOf(t, rec)
	other := factsOf(t, sealed(t, "s-other", c1))
	keys := []ed25519.PublicKey{attestPub}
	cases := []struct {
		name string
		edit func(f *sigbundle.Facts)
		keys []ed25519.PublicKey
		code format.Code
		says string
	}{
		{"another record", func(f *sigbundle.Facts) { *f = other }, keys, format.AttestInvalid, "recordId"},
		{"another file", func(f *sigbundle.Facts) { f.RecordSHA256 = other.RecordSHA256 }, keys, format.AttestInvalid, "sha256"},
		{"another signer", func(f *sigbundle.Facts) { f.KeyID = other.RecordSHA256 }, keys, format.AttestKeyIDMismatch, "cites key"},
		{"another session", func(f *sigbundle.Facts) { f.SessionID = "s-other" }, keys, format.AttestInvalid, "sessionId"},
		{"a step fewer", func(f *sigbundle.Facts) { f.StepCount-- }, keys, format.AttestInvalid, "stepCount"},
		{"another tip", func(f *sigbundle.Facts) { f.ChainTip = other.RecordID }, keys, format.AttestInvalid, "chainTip"},
		{"a commit more", func(f *sigbundle.Facts) { f.Commits = append(f.Commits, c2) }, keys, format.AttestInvalid, "commits"},
		{"no commit", func(f *sigbundle.Facts) { f.Commits = nil }, keys, format.AttestInvalid, "commits"},
		{"a higher level", func(f *sigbundle.Facts) { f.Level = "server" }, keys, format.AttestInvalid, "level server"},
		{"a policy not checked", func(f *sigbundle.Facts) { f.Policies = []string{"sha256:00"} }, keys, format.AttestInvalid, "policies"},
		{"unpinned attestor", func(*sigbundle.Facts) {}, []ed25519.PublicKey{sealKey.Public().(ed25519.PublicKey)}, format.AttestInvalid, "names no pinned"},
	}
	for _, c := range cases {
		f := want
		f.Commits = append([]string{}, want.Commits...)
		c.edit(&f)
		b, err := sigbundle.Sign(f, attestKey)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = sigbundle.Check(b, c.keys, want)
		var re *format.RefusalError
		if !errors.As(err, &re) || re.Code != c.code || !strings.Contains(re.Detail, c.says) {
			t.Errorf("%s: %v, want %s saying %q", c.name, err, c.code, c.says)
		}
	}
}

// TestOpenRefusesShapes: Open reads Sign's shape and nothing else.
func TestOpenRefusesShapes(t *testing.T) {
	t.Parallel()
	f := factsOf(t, sealed(t, "s-shape", c1))
	good, err := sigbundle.Sign(f, attestKey)
	if err != nil {
		t.Fatal(err)
	}
	keys := []ed25519.PublicKey{attestPub}
	hint := sigbundle.Hint(attestPub)
	for name, edit := range map[string]func(string) string{
		"duplicate key": func(s string) string {
			return strings.Replace(s, `{"dsseEnvelope"`, `{"mediaType":"x","dsseEnvelope"`, 1)
		},
		"tlog entries": func(s string) string { return strings.Replace(s, `"publicKey"`, `"tlogEntries":[],"publicKey"`, 1) },
		"second signature": func(s string) string {
			return strings.Replace(s, `"signatures":[{`, `"signatures":[{"sig":"AA=="},{`, 1)
		},
		"keyid":           func(s string) string { return strings.Replace(s, `{"sig"`, `{"keyid":"","sig"`, 1) },
		"media type v0.2": func(s string) string { return strings.Replace(s, "v0.3", "v0.2", 1) },
		"other hint": func(s string) string {
			return strings.Replace(s, hint, sigbundle.Hint(sealKey.Public().(ed25519.PublicKey)), 1)
		},
		"payload type":   func(s string) string { return strings.Replace(s, "in-toto+json", "in-toto+jsom", 1) },
		"not base64":     func(s string) string { return strings.Replace(s, `"payload":"`, `"payload":"!`, 1) },
		"wrapped base64": func(s string) string { return strings.Replace(s, `"payload":"ey`, `"payload":"e\ny`, 1) },
		"too large":      func(s string) string { return s + strings.Repeat(" ", sigbundle.MaxSize) },
	} {
		if _, err := sigbundle.Open([]byte(edit(string(good))), keys); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
	if _, err := sigbundle.Open(good, keys); err != nil {
		t.Fatal(err)
	}
}

// TestSignRefusesBadFacts: nothing malformed is signed.
func TestSignRefusesBadFacts(t *testing.T) {
	t.Parallel()
	f := factsOf(t, sealed(t, "s-bad", c1))
	for name, edit := range map[string]func(f *sigbundle.Facts){
		"twice named":      func(f *sigbundle.Facts) { f.Commits = []string{c1, c1} },
		"not a commit":     func(f *sigbundle.Facts) { f.Commits = []string{"main"} },
		"logged, no proof": func(f *sigbundle.Facts) { f.Level = "logged" },
		"proof, not logged": func(f *sigbundle.Facts) {
			f.LogProof = &sigbundle.LogProof{Origin: "o", Index: 1, TreeSize: 2, Proof: "p"}
		},
		"no session": func(f *sigbundle.Facts) { f.SessionID = "" },
		"level":      func(f *sigbundle.Facts) { f.Level = "high" },
	} {
		g := f
		edit(&g)
		if _, err := sigbundle.Sign(g, attestKey); err == nil {
			t.Errorf("%s: signed", name)
		}
	}
}

// TestManyCommits: a session that made 10,000 commits, with a proof of
// logging, makes a bundle well under the read limit, which Open reads
// back whole.
func TestManyCommits(t *testing.T) {
	t.Parallel()
	f := factsOf(t, sealed(t, "s-many", c1))
	f.Commits = nil
	for i := range 10000 {
		f.Commits = append(f.Commits, fmt.Sprintf("%040x", i+1))
	}
	f.Level = "logged"
	f.LogProof = &sigbundle.LogProof{Origin: "logbook.example.org/log", Index: 999999, TreeSize: 1000000, Proof: strings.Repeat("x", 2000)}
	b, err := sigbundle.Sign(f, attestKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > sigbundle.MaxSize/2 {
		t.Errorf("%d bytes: over half the read limit (%d)", len(b), sigbundle.MaxSize)
	}
	t.Logf("a bundle naming 10,000 commits: %d bytes", len(b))
	v, err := sigbundle.Open(b, []ed25519.PublicKey{attestPub})
	if err != nil || len(v.Commits) != 10000 {
		t.Fatalf("%v, %d commits", err, len(v.Commits))
	}
}

// FuzzOpen: whatever the bytes, Open answers without panicking, and the
// facts of a bundle it accepts are ones Sign writes and Open reads back.
func FuzzOpen(f *testing.F) {
	good, err := sigbundle.Sign(factsOf(f, sealed(f, "s-fuzz", c1)), attestKey)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := sigbundle.Open(b, []ed25519.PublicKey{attestPub})
		if err != nil {
			return
		}
		again, err := sigbundle.Sign(v.Facts, attestKey)
		if err != nil {
			t.Fatalf("accepted facts that Sign refuses: %v", err)
		}
		if w, err := sigbundle.Open(again, []ed25519.PublicKey{attestPub}); err != nil || !reflect.DeepEqual(w, v) {
			t.Errorf("the facts do not round-trip: %v", err)
		}
	})
}
