package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/keyobjects"
)

// verifyCLI runs logbook-verify with args and returns its exit status and
// the --json verdict (or error code) it printed.
func verifyCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	var v struct {
		Verdict string `json:"verdict"`
		Error   *struct {
			Code string `json:"code"`
		} `json:"error"`
		Checks struct {
			Signature string `json:"signature"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v: not JSON on stdout (%v): %s\nstderr: %s", args, err, out.String(), errb.String())
	}
	what := v.Checks.Signature
	if v.Error != nil {
		what = v.Error.Code
	}
	return code, v.Verdict, what
}

// TestCassetteSharedCasesCLI runs runback's own cases (verdicts from
// runback's verifier, cases/EXPECTED.json) through the command line, with
// runback's test key pinned and its HMAC key given.
func TestCassetteSharedCasesCLI(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "samples/runback", "runback's cases with its verifier's verdicts")
	b, err := os.ReadFile(filepath.Join(dir, "cases", "EXPECTED.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Verdict string `json:"verdict"`
		Exit    int    `json:"exit"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	pub, hk := filepath.Join(dir, "testkey.ed25519.pub.pem"), filepath.Join(dir, "testkey.hmac.txt")
	for name, w := range want {
		code, verdict, _ := verifyCLI(t, "--json", "--pubkey", pub, "--hmac-key", hk, filepath.Join(dir, "cases", name+".json"))
		if code != w.Exit || verdict != w.Verdict {
			t.Errorf("%s: exit %d %s, want exit %d %s", name, code, verdict, w.Exit, w.Verdict)
		}
	}
}

// sampleCassette reads a shared sample as a generic JSON object.
func sampleCassette(t *testing.T, name string) map[string]any {
	t.Helper()
	dir := corpora.Require(t, "samples/runback", "runback's sample cassettes")
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCassetteUndetectable: a file logbook-verify cannot tell is a
// cassette from its first bytes, given a flag only a cassette takes, gets
// runback's verdict and exit status (0 valid, 1 invalid or an error),
// never a usage error (2). Each class is derived from runback's HMAC
// sample; the expected outcome is what runback's verifier code gives for
// it (packages/verify: JSON.parse, then the checks; $schema is only the
// schema check).
func TestCassetteUndetectable(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "samples/runback", "runback's sample cassettes")
	hk := filepath.Join(dir, "testkey.hmac.txt")
	tmp := t.TempDir()
	base := sampleCassette(t, "sample-cassette.hmac-testkey.json")
	with := func(edit func(m map[string]any)) []byte {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		edit(m)
		return marshal(t, m)
	}
	noSchema := with(func(m map[string]any) { delete(m, "$schema") })
	// Detect reads raw bytes: an escaped "r" hides the prefix, JSON.parse does not care.
	escaped := bytes.Replace(marshal(t, base), []byte(`"$schema":"runback.`), []byte(`"$schema":"\u0072unback.`), 1)
	// A long member before "$schema" pushes it past Detect's 64 KiB.
	late := append([]byte(`{"aaa":"`+strings.Repeat("x", 70<<10)+`",`), marshal(t, base)[1:]...)
	record, err := os.ReadFile("../../testdata/records/good_basic.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		exit    int
		verdict string
		what    string // signature state, or error code
		noFlag  bool   // also judged as a cassette without a cassette flag
	}{
		{"no-schema", noSchema, 1, "invalid", "valid", true},
		{"array-schema", with(func(m map[string]any) { m["$schema"] = []any{"runback.audit/v2"} }), 1, "invalid", "valid", true},
		{"number-schema", with(func(m map[string]any) { m["$schema"] = 2 }), 1, "invalid", "valid", true},
		{"escaped-schema", escaped, 0, "valid", "valid", true},
		{"schema-past-64KiB", late, 0, "valid", "valid", true},
		{"top-level-null", []byte("null"), 1, "invalid", "NOT_A_CASSETTE", false},
		{"top-level-array", []byte(`[{"manifest":{},"events":[]}]`), 1, "invalid", "NOT_A_CASSETTE", false},
		{"byte-order-mark", append([]byte("\uFEFF"), marshal(t, base)...), 1, "invalid", "JSON_SYNTAX", false},
		{"not-json", []byte("runback.audit/v2"), 1, "invalid", "JSON_SYNTAX", false},
		{"logbook-record", record, 1, "invalid", "NOT_A_CASSETTE", false},
	} {
		file := filepath.Join(tmp, c.name+".json")
		if err := os.WriteFile(file, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, flags := range [][]string{{"--hmac-key", hk}, {"--strict", "--hmac-key", hk}, {"--cassette", "--hmac-key", hk}} {
			code, verdict, what := verifyCLI(t, append(append([]string{"--json"}, flags...), file)...)
			wantExit, wantVerdict := c.exit, c.verdict // --strict: these carry no finding
			if code != wantExit || verdict != wantVerdict || what != c.what {
				t.Errorf("%s %v: exit %d %s %s, want exit %d %s %s", c.name, flags, code, verdict, what, wantExit, wantVerdict, c.what)
			}
		}
		if c.noFlag {
			// No cassette flag, not a record, a cassette's shape: still runback's verdict (no-key: no HMAC key given).
			code, verdict, what := verifyCLI(t, "--json", file)
			wantExit, wantVerdict := 2, "unverified"
			if c.exit == 1 {
				wantExit, wantVerdict = 1, "invalid"
			}
			if code != wantExit || verdict != wantVerdict || what != "no-key" {
				t.Errorf("%s without a flag: exit %d %s %s, want exit %d %s no-key", c.name, code, verdict, what, wantExit, wantVerdict)
			}
		}
	}
	// A missing file: runback's CLI says so and exits 1.
	if code, verdict, what := verifyCLI(t, "--json", "--hmac-key", hk, filepath.Join(tmp, "missing.json")); code != 1 || verdict != "invalid" || what != "READ_ERROR" {
		t.Errorf("missing file: exit %d %s %s, want 1 invalid READ_ERROR", code, verdict, what)
	}
}

// TestCassetteKeyObjects: the embedded "pubkey" read as Node's
// createPublicKey reads it (a key object, JWK included), and pinned keys
// given as JWK files.
func TestCassetteKeyObjects(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "samples/runback", "runback's sample cassettes")
	pemFile := filepath.Join(dir, "testkey.ed25519.pub.pem")
	pemText, err := os.ReadFile(pemFile)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := base64.StdEncoding.DecodeString("MCowBQYDK2VwAyEAg8KRsNeY0pQVF0WDAtifeAYJhf8fgW8N4EzArWiKoLU=")
	jwk := keyobjects.JWK(der)
	tmp := t.TempDir()
	base := sampleCassette(t, "sample-cassette.ed25519-testkey.json")
	withKey := func(k any) string {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		man := map[string]any{}
		for k, v := range m["manifest"].(map[string]any) {
			man[k] = v
		}
		sig := map[string]any{}
		for k, v := range man["signature"].(map[string]any) {
			sig[k] = v
		}
		sig["pubkey"] = k
		man["signature"] = sig
		m["manifest"] = man
		f := filepath.Join(tmp, strings.ReplaceAll(string(marshal(t, k))[:min(40, len(marshal(t, k)))], "/", "_")+".json")
		if err := os.WriteFile(f, marshal(t, m), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, c := range keyobjects.Cases(der, string(pemText)) {
		f := withKey(c.Key)
		_, _, sig := verifyCLI(t, "--json", "--pubkey", pemFile, f)
		if sig != c.Sig {
			t.Errorf("%s: signature %s, want %s", c.Name, sig, c.Sig)
		}
	}
	// Pinned and revoked keys given as JWK files.
	cassette := filepath.Join(dir, "sample-cassette.ed25519-testkey.json")
	for _, k := range []any{jwk, map[string]any{"key": jwk, "format": "jwk"}} {
		kf := filepath.Join(tmp, "key.jwk")
		if err := os.WriteFile(kf, marshal(t, k), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, verdict, sig := verifyCLI(t, "--json", "--pubkey", kf, cassette); code != 0 || verdict != "valid" || sig != "valid" {
			t.Errorf("--pubkey %s: exit %d %s %s, want 0 valid valid", marshal(t, k), code, verdict, sig)
		}
		if code, _, sig := verifyCLI(t, "--json", "--pubkey", pemFile, "--revoked", kf, cassette); code != 2 || sig != "revoked" {
			t.Errorf("--revoked %s: exit %d %s, want 2 revoked", marshal(t, k), code, sig)
		}
	}
	// A JWK file that is no Ed25519 key is refused at start.
	bad := filepath.Join(tmp, "rsa.jwk")
	os.WriteFile(bad, []byte(`{"kty":"RSA","n":"AQAB","e":"AQAB"}`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"--pubkey", bad, cassette}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "NON_ED25519_KEY") {
		t.Errorf("RSA JWK: exit %d, stderr %q", code, errb.String())
	}
}

// TestCassetteUndetectableWithoutFlag pins the one class where logbook's
// answer is worded differently from runback's CLI (docs/runback.md §11):
// a file that is neither a logbook record nor shaped like a cassette, given
// no cassette-only flag (none at all, or only --pubkey, which records take
// too), is refused as a record. The exit status is runback's (1), and it is
// never a usage error; with --cassette the error is runback's own.
func TestCassetteUndetectableWithoutFlag(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "samples/runback", "runback's test key")
	pub := filepath.Join(dir, "testkey.ed25519.pub.pem")
	tmp := t.TempDir()
	for _, c := range []struct {
		name, data, record, cassette string
	}{
		{"top-level-null", "null", "SHAPE", "NOT_A_CASSETTE"},
		{"top-level-number", "42", "SHAPE", "NOT_A_CASSETTE"},
		{"top-level-string", `"runback.audit/v2"`, "SHAPE", "NOT_A_CASSETTE"},
		{"top-level-true", "true", "SHAPE", "NOT_A_CASSETTE"},
		{"top-level-array", `[{"manifest":{},"events":[]}]`, "SHAPE", "NOT_A_CASSETTE"},
		{"empty-object", "{}", "SHAPE", "NOT_A_CASSETTE"},
		{"empty-file", "", "NOT_JSON", "JSON_SYNTAX"},
		{"byte-order-mark", "\uFEFF{\"$schema\":\"runback.audit/v2\",\"manifest\":{},\"events\":[]}", "NOT_JSON", "JSON_SYNTAX"},
	} {
		file := filepath.Join(tmp, c.name+".json")
		if err := os.WriteFile(file, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, flags := range [][]string{nil, {"--pubkey", pub}} {
			var out, errb bytes.Buffer
			code := run(append(append([]string{"--json"}, flags...), file), &out, &errb)
			var v struct {
				OK   bool   `json:"ok"`
				Code string `json:"code"`
			}
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Fatalf("%s %v: not JSON (%v): %s %s", c.name, flags, err, out.String(), errb.String())
			}
			if code != 1 || v.OK || v.Code != c.record {
				t.Errorf("%s %v: exit %d ok=%v code %s, want exit 1 refused %s", c.name, flags, code, v.OK, v.Code, c.record)
			}
			if code := run(append(append([]string{}, flags...), file), &out, &errb); code != 1 {
				t.Errorf("%s %v without --json: exit %d, want 1", c.name, flags, code)
			}
		}
		if code, verdict, what := verifyCLI(t, "--json", "--cassette", file); code != 1 || verdict != "invalid" || what != c.cassette {
			t.Errorf("%s --cassette: exit %d %s %s, want 1 invalid %s", c.name, code, verdict, what, c.cassette)
		}
	}
}
