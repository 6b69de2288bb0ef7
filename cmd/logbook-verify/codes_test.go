package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/reviewcmd"
)

const testdata = "../../testdata"

// fixtureFlags are the flags, by the camelCase names of a fixture's
// options file, and whether logbook-review takes them too.
var fixtureFlags = map[string]struct {
	flag   string
	review bool
}{
	"pubkey": {"--pubkey", true}, "revoked": {"--revoked", false},
	"tsaRoots": {"--tsa-roots", true}, "identityRoots": {"--identity-roots", false}, "trustedIdentities": {"--trusted-identities", false},
	"attestation": {"--attestation", true}, "attestorKey": {"--attestor-key", true},
	"checkpoint": {"--checkpoint", true}, "checkpointKey": {"--checkpoint-key", true},
	"logPolicy": {"--log-policy", true}, "logProof": {"--log-proof", true}, "requireManaged": {"--require-managed", false},
	"requireAttested": {"--require-attested", false},
}

// codeFixture finds a fixture refused with code and the flags that give
// it: fail_CODE_*.json in the record fixture sets (with its options
// file), the gate's (under its --policy-key), the bundles' or the
// evidence's (the record with its transcript). review is
// false when logbook-review does not take one of the flags.
func codeFixture(t *testing.T, code format.Code) (args []string, review bool) {
	t.Helper()
	pattern := "fail_" + string(code) + "_*.json"
	for _, dir := range []string{"records", "records/policy", "records/checkpoint", "records/log"} {
		files, _ := filepath.Glob(filepath.Join(testdata, dir, pattern))
		if len(files) == 0 {
			continue
		}
		sort.Strings(files)
		opts := map[string]any{"pubkey": []any{"keys/fixture.key.pub"}}
		if b, err := os.ReadFile(filepath.Join(testdata, dir, "options", filepath.Base(files[0]))); err == nil {
			o := map[string]any{}
			if err := json.Unmarshal(b, &o); err != nil {
				t.Fatal(err)
			}
			if _, ok := o["pubkey"]; !ok {
				o["pubkey"] = opts["pubkey"]
			}
			opts = o
		}
		review = true
		names := make([]string, 0, len(opts))
		for k := range opts {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			f, ok := fixtureFlags[k]
			if !ok {
				t.Fatalf("%s: option %s names no flag", files[0], k)
			}
			review = review && f.review
			switch v := opts[k].(type) {
			case bool:
				if v {
					args = append(args, f.flag)
				}
			case string:
				args = append(args, f.flag, filepath.Join(testdata, v))
			case []any:
				for _, p := range v {
					args = append(args, f.flag, filepath.Join(testdata, p.(string)))
				}
			}
		}
		return append(args, files[0]), review
	}
	if files, _ := filepath.Glob(filepath.Join(testdata, "gate", pattern)); len(files) > 0 {
		return []string{"--policy-key", filepath.Join(testdata, "gate", "policy.key.pub"), files[0]}, true
	}
	if files, _ := filepath.Glob(filepath.Join(testdata, "commits", strings.TrimSuffix(pattern, ".json")+".fi")); len(files) > 0 {
		// A commit's binding (docs/commits.md): the fixture is a
		// repository as a git fast-import stream.
		// FILE.args: more flags, one a line (--require-level LEVEL).
		args := []string{"--repo", commitRepo(t, files[0]), "--commits", "main~1..main", "--records", filepath.Join(testdata, "commits", "records"),
			"--pubkey", filepath.Join(testdata, "keys", "fixture.key.pub")}
		if b, err := os.ReadFile(files[0] + ".args"); err == nil {
			args = append(args, strings.Fields(string(b))...)
		}
		return args, false
	}
	if files, _ := filepath.Glob(filepath.Join(testdata, "bundles", pattern)); len(files) > 0 {
		return []string{"--trust", filepath.Join(testdata, "bundles", "signer.pub"), "--bundle", files[0]}, false
	}
	if files, _ := filepath.Glob(filepath.Join(testdata, "evidence", pattern)); len(files) > 0 {
		// logbook-review takes no transcript: a transcript's evidence
		// is logbook-verify's alone.
		return []string{"--pubkey", filepath.Join(testdata, "evidence", "signer.pub"), "--evidence", files[0] + "l", files[0]}, false
	}
	t.Fatalf("%s: no fixture %s", code, pattern)
	return nil, false
}

// commitLine is the commit id a --commits line starts with.
var commitLine = regexp.MustCompile(`^[0-9a-f]{40} `)

// commitRepo makes the repository of a testdata/commits fixture.
func commitRepo(t *testing.T, stream string) string {
	t.Helper()
	b, err := os.ReadFile(stream)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"fast-import", "--quiet"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Stdin = bytes.NewReader(b)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir
}

// TestEveryCodeEverywhere: every code of internal/format's table, the one
// place a refusal code is added, reaches every place a verdict is shown:
// logbook-verify's line and its --json (a fixture refused with the code,
// run through the command with its flags), logbook-review's line and
// --json (the same fixture where review takes the flags; else the
// review's verdict for a record so refused) and the web page's table
// (web/js/codes.js, which go test ./web holds to the table).
func TestEveryCodeEverywhere(t *testing.T) {
	page, err := os.ReadFile("../../web/js/codes.js")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(testdata, "records", "good_basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range format.Table {
		code := string(c.Code)
		args, viaReview := codeFixture(t, c.Code)

		// A commit's line starts with the commit's id.
		if status, out := runVerify(t, args...); status != 1 || !strings.HasPrefix(commitLine.ReplaceAllString(out, ""), "REFUSED "+code+": ") {
			t.Errorf("%s: logbook-verify %s: %d %q", code, strings.Join(args, " "), status, out)
		}
		var v struct {
			OK   bool
			Code *string
		}
		var out, errb bytes.Buffer
		status := run(append([]string{"--json"}, args...), &out, &errb)
		if err := json.Unmarshal(out.Bytes(), &v); err != nil || status != 1 || v.OK || v.Code == nil || *v.Code != code {
			t.Errorf("%s: logbook-verify --json: %d %s %s", code, status, out.String(), errb.String())
		}

		var rv review.Verdict
		if viaReview {
			out.Reset()
			errb.Reset()
			status := reviewcmd.Run(append([]string{"--json"}, args...), &out, &errb, func(string) string { return "" })
			var r struct{ Verdict review.Verdict }
			if err := json.Unmarshal(out.Bytes(), &r); err != nil || status != 1 {
				t.Errorf("%s: logbook-review --json %s: %d %v %s", code, strings.Join(args, " "), status, err, errb.String())
			}
			rv = r.Verdict
		} else {
			// logbook-review takes no such flag (or no bundle's own
			// code): the review of a record refused with the code.
			res := record.Verify(good, record.Options{})
			res.Refuse(format.Refuse(c.Code, "d"))
			r, err := review.FromRecord(good, res, false)
			if err != nil {
				t.Fatal(err)
			}
			rv = r.Verdict
		}
		if rv.OK || rv.Code != code || !strings.HasPrefix(rv.Line, "REFUSED "+code+": ") {
			t.Errorf("%s: logbook-review's verdict %+v", code, rv)
		}

		if !bytes.Contains(page, []byte("\n    "+code+": \"")) {
			t.Errorf("%s: not in the web page's table (web/js/codes.js): run go test ./web -run TestCodesJS -update", code)
		}
	}
}
