package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
)

// The conformance corpus (testdata/conformance/README.md): manifest.json
// names every vector another implementation of logbook-verify can run,
// each a fixture of testdata/ with the flags it is checked under and the
// verdict and exit status it must get. The fixtures are the one home of
// each case; the manifest is written from them by
// `go test ./cmd/logbook-verify -run TestConformance -update-conformance`.

var updateConformance = flag.Bool("update-conformance", false, "rewrite testdata/conformance/manifest.json from the fixtures")

const conformanceManifest = testdata + "/conformance/manifest.json"

// conformanceRepo stands, in a binding vector's arguments, for a git
// repository made from the vector's fast-import stream.
const conformanceRepo = "$REPO"

// vector is one entry of the manifest. Paths are relative to testdata/.
type vector struct {
	ID     string   `json:"id"`
	Kind   string   `json:"kind"` // record, bundle, evidence, binding or cassette
	Files  []string `json:"files"`
	Repo   string   `json:"repo,omitempty"` // binding: the git fast-import stream $REPO is made from
	Args   []string `json:"args"`
	Expect expect   `json:"expect"`
}

// expect is a vector's verdict. A cassette (runback's format) is judged
// by runback's verdicts, not logbook's codes: code is null and verdict,
// signature, error and findings say what it must get.
type expect struct {
	OK        bool     `json:"ok"`
	Code      *string  `json:"code"`
	Exit      int      `json:"exit"`
	Level     string   `json:"level,omitempty"`
	Status    string   `json:"status,omitempty"` // binding: the commit's status, recorded or refused
	Verdict   string   `json:"verdict,omitempty"`
	Signature string   `json:"signature,omitempty"`
	Error     string   `json:"error,omitempty"`
	Findings  []string `json:"findings,omitempty"`
}

type manifest struct {
	Format  string   `json:"format"`
	About   string   `json:"about"`
	Vectors []vector `json:"vectors"`
}

const manifestFormat = "logbook-conformance/v1"

// fixtureVerdict is the verdict a fixture's name gives: fail_CODE_what
// must be refused with CODE, good_what accepted.
func fixtureVerdict(t *testing.T, name string) expect {
	t.Helper()
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".fi")
	if strings.HasPrefix(name, "good_") {
		return expect{OK: true, Exit: 0}
	}
	for _, c := range format.Table {
		code := string(c.Code)
		if strings.HasPrefix(name, "fail_"+code+"_") {
			return expect{Code: &code, Exit: 1}
		}
	}
	t.Fatalf("%s: neither good_ nor fail_CODE_ of a code in format.Table", name)
	return expect{}
}

// optionArgs turns a record fixture's options file (camelCase flag names,
// fixtureFlags) into flags, the default being the fixture key pinned.
func optionArgs(t *testing.T, dir, name string) []string {
	t.Helper()
	opts := map[string]any{"pubkey": []any{"keys/fixture.key.pub"}}
	if b, err := os.ReadFile(filepath.Join(testdata, dir, "options", name)); err == nil {
		o := map[string]any{}
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatal(err)
		}
		if _, ok := o["pubkey"]; !ok {
			o["pubkey"] = opts["pubkey"]
		}
		opts = o
	}
	names := make([]string, 0, len(opts))
	for k := range opts {
		names = append(names, k)
	}
	sort.Strings(names)
	var args []string
	for _, k := range names {
		f, ok := fixtureFlags[k]
		if !ok {
			t.Fatalf("%s/%s: option %s names no flag", dir, name, k)
		}
		switch v := opts[k].(type) {
		case bool:
			if v {
				args = append(args, f.flag)
			}
		case string:
			args = append(args, f.flag, v)
		case []any:
			for _, p := range v {
				args = append(args, f.flag, p.(string))
			}
		}
	}
	return args
}

// glob lists testdata/dir/pattern by paths relative to testdata.
func glob(t *testing.T, dir, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testdata, dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		rel, err := filepath.Rel(testdata, f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// argFiles are the files a vector reads: each argument naming a file of
// testdata, and each file of a folder it names.
func argFiles(t *testing.T, args []string, more ...string) []string {
	t.Helper()
	files := more
	for _, a := range args {
		st, err := os.Stat(filepath.Join(testdata, a))
		switch {
		case err != nil || strings.HasPrefix(a, "-"):
		case st.IsDir():
			files = append(files, glob(t, a, "*")...)
		default:
			files = append(files, a)
		}
	}
	sort.Strings(files)
	return slices.Compact(files)
}

// buildManifest writes the manifest's vectors from the fixtures.
func buildManifest(t *testing.T) manifest {
	t.Helper()
	m := manifest{
		Format: manifestFormat,
		About:  "logbook-verify conformance vectors: paths relative to testdata/, args as logbook-verify takes them run from testdata/; see README.md",
	}
	add := func(kind, file string, args []string, e expect, more ...string) {
		m.Vectors = append(m.Vectors, vector{
			ID: strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".fi"), Kind: kind,
			Files: argFiles(t, args, more...), Args: args, Expect: e,
		})
	}
	// Records, alone and under the fixture sets' options.
	for _, dir := range []string{"records", "records/policy", "records/checkpoint", "records/log"} {
		for _, pattern := range []string{"good_*.json", "fail_*.json"} {
			for _, f := range glob(t, dir, pattern) {
				args := append(optionArgs(t, dir, filepath.Base(f)), f)
				add("record", f, args, fixtureVerdict(t, filepath.Base(f)))
			}
		}
	}
	// Records under the organization policy's gate.
	for _, pattern := range []string{"good_*.json", "fail_*.json"} {
		for _, f := range glob(t, "gate", pattern) {
			add("record", f, []string{"--policy-key", "gate/policy.key.pub", f}, fixtureVerdict(t, filepath.Base(f)))
		}
	}
	// Hand-over bundles, and the logged ones (loggedCases).
	for _, pattern := range []string{"good_*.json", "fail_*.json"} {
		for _, f := range glob(t, "bundles", pattern) {
			add("bundle", f, []string{"--trust", "bundles/signer.pub", "--bundle", f}, fixtureVerdict(t, filepath.Base(f)))
		}
	}
	for _, c := range loggedCases {
		f := "bundles/logged/" + c.name + ".bundle.json"
		args := []string{"--trust", "bundles/logged/server.pub", "--checkpoint-key", "bundles/logged/server.pub"}
		if c.policy != "" {
			args = append(args, "--log-policy", "bundles/logged/"+c.policy)
		}
		e := expect{OK: true, Level: c.want}
		if c.want != "logged" && c.want != "server" {
			code := c.want
			e = expect{Code: &code, Exit: 1}
		}
		add("bundle", f, append(args, "--bundle", f), e)
	}
	// Session attestation bundles about the logged s1 record
	// (attestation/README.md), checked with it and its sidecars.
	for _, pattern := range []string{"good_*.bundle.json", "fail_*.bundle.json"} {
		for _, f := range glob(t, "attestation", pattern) {
			args := []string{"--pubkey", "bundles/logged/server.pub", "--checkpoint-key", "bundles/logged/server.pub",
				"--log-policy", "bundles/logged/w1.policy", "--attestation-bundle", f, "--attestor-key", "attestation/attestor.pub",
				"bundles/logged/s1.record.json"}
			e := fixtureVerdict(t, filepath.Base(f))
			if e.OK {
				e.Level = "logged"
			}
			add("record", f, args, e, "bundles/logged/s1.record.checkpoint", "bundles/logged/s1.record.tlog-proof")
		}
	}
	// Transcripts as evidence: the record and its transcript.
	for _, pattern := range []string{"good_*.json", "fail_*.json"} {
		for _, f := range glob(t, "evidence", pattern) {
			add("evidence", f, []string{"--pubkey", "evidence/signer.pub", "--evidence", f + "l", f}, fixtureVerdict(t, filepath.Base(f)))
		}
	}
	// Commits' bindings: a repository as a git fast-import stream, its
	// last commit checked against the records folder.
	for _, pattern := range []string{"good_*.fi", "fail_*.fi"} {
		for _, f := range glob(t, "commits", pattern) {
			args := []string{"--repo", conformanceRepo, "--commits", "main~1..main", "--records", "commits/records", "--pubkey", "keys/fixture.key.pub"}
			if b, err := os.ReadFile(filepath.Join(testdata, f+".args")); err == nil {
				args = append(args, strings.Fields(string(b))...)
			}
			e := fixtureVerdict(t, filepath.Base(f))
			e.Status = "refused"
			if e.OK {
				e.Status = "recorded"
			}
			add("binding", f, args, e, f)
			m.Vectors[len(m.Vectors)-1].Repo = f
		}
	}
	// runback cassettes, with the verdicts runback's verifier gives
	// (testdata/runback/EXPECTED.json).
	b, err := os.ReadFile(filepath.Join(testdata, "runback", "EXPECTED.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Options struct {
			Pinned, Revoked []string
			HMAC, Strict    bool
		}
		Verdict, Signature, Error string
		Exit                      int
		Findings                  []string
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w := want[n]
		args := []string{"--cassette"}
		for _, k := range w.Options.Pinned {
			args = append(args, "--pubkey", "runback/"+k+".pub")
		}
		for _, k := range w.Options.Revoked {
			args = append(args, "--revoked", "runback/"+k+".pub")
		}
		if w.Options.HMAC {
			args = append(args, "--hmac-key", "runback/hmac.key")
		}
		if w.Options.Strict {
			args = append(args, "--strict")
		}
		f := "runback/" + n + ".json"
		add("cassette", f, append(args, f), expect{
			OK: w.Verdict == "valid", Exit: w.Exit, Verdict: w.Verdict,
			Signature: w.Signature, Error: w.Error, Findings: w.Findings,
		})
	}
	// The level each accepted record reaches, as logbook-verify --json
	// says (a transcript's verdict names none).
	for i, v := range m.Vectors {
		if !v.Expect.OK || v.Kind == "cassette" || v.Expect.Level != "" {
			continue
		}
		var out bytes.Buffer
		run(append([]string{"--json"}, vectorArgs(t, v)...), &out, new(bytes.Buffer))
		var j struct{ Level string }
		if err := json.NewDecoder(&out).Decode(&j); err != nil {
			t.Fatalf("%s: %v", v.ID, err)
		}
		m.Vectors[i].Expect.Level = j.Level
	}
	return m
}

// marshalManifest writes one vector a line, so that a new fixture is a
// line of the diff.
func marshalManifest(t *testing.T, m manifest) []byte {
	t.Helper()
	var buf bytes.Buffer
	head, err := json.Marshal(struct {
		Format string `json:"format"`
		About  string `json:"about"`
	}{m.Format, m.About})
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(head[:len(head)-1])
	buf.WriteString(`,"vectors":[` + "\n")
	for i, v := range m.Vectors {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		if i < len(m.Vectors)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]}\n")
	return buf.Bytes()
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	b, err := os.ReadFile(conformanceManifest)
	if err != nil {
		t.Fatalf("%v: run go test ./cmd/logbook-verify -run TestConformance -update-conformance", err)
	}
	var m manifest
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Format != manifestFormat {
		t.Fatalf("manifest format %q, want %q", m.Format, manifestFormat)
	}
	return m
}

// TestConformanceManifest: the manifest is the one written from the
// fixtures; it has a must-refuse vector for every code of format.Table
// and a must-accept vector of every kind; and it names only files of
// testdata that exist, each file a vector reads.
func TestConformanceManifest(t *testing.T) {
	built := marshalManifest(t, buildManifest(t))
	if *updateConformance {
		if err := os.WriteFile(conformanceManifest, built, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := readManifest(t)
	if got, _ := os.ReadFile(conformanceManifest); !bytes.Equal(got, built) {
		t.Errorf("%s is not the one the fixtures give: run go test ./cmd/logbook-verify -run TestConformance -update-conformance", conformanceManifest)
	}

	refused, accepted, ids := map[string]int{}, map[string]int{}, map[string]bool{}
	for _, v := range m.Vectors {
		if ids[v.ID] {
			t.Errorf("%s: two vectors", v.ID)
		}
		ids[v.ID] = true
		switch {
		case v.Expect.OK:
			accepted[v.Kind]++
		case v.Expect.Code != nil:
			refused[*v.Expect.Code]++
		}
		listed := map[string]bool{}
		for _, f := range v.Files {
			listed[f] = true
			if filepath.IsAbs(f) || strings.Contains(f, "..") || strings.Contains(f, "shared/") {
				t.Errorf("%s: %s is not a path inside testdata", v.ID, f)
			}
			if st, err := os.Stat(filepath.Join(testdata, f)); err != nil || !st.Mode().IsRegular() {
				t.Errorf("%s: %s: not a file (%v)", v.ID, f, err)
			}
		}
		if v.Repo != "" && !listed[v.Repo] {
			t.Errorf("%s: repo %s not among its files", v.ID, v.Repo)
		}
		// Every argument naming a path reads a listed file, or a folder
		// of them.
		for _, a := range v.Args {
			if strings.HasPrefix(a, "-") || a == conformanceRepo || !strings.Contains(a, "/") {
				continue
			}
			under := false
			for f := range listed {
				under = under || f == a || strings.HasPrefix(f, a+"/")
			}
			if !under {
				t.Errorf("%s: argument %s names no listed file", v.ID, a)
			}
		}
	}
	for _, c := range format.Table {
		if refused[string(c.Code)] == 0 {
			t.Errorf("%s: no must-refuse vector in %s", c.Code, conformanceManifest)
		}
	}
	for _, kind := range []string{"record", "bundle", "evidence", "binding", "cassette"} {
		if accepted[kind] == 0 {
			t.Errorf("%s: no must-accept vector", kind)
		}
	}
	// The README's count is the manifest's.
	readme, err := os.ReadFile(testdata + "/conformance/README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("gives %d vectors", len(m.Vectors)); !bytes.Contains(readme, []byte(want)) {
		t.Errorf("testdata/conformance/README.md does not say %q: update its counts", want)
	}
}

// TestConformanceVectors runs every vector of the manifest through
// logbook-verify as its arguments say, from testdata/: the exit status,
// the line (OK, or REFUSED CODE:) and the --json verdict must be the
// vector's.
func TestConformanceVectors(t *testing.T) {
	m := readManifest(t)
	for _, v := range m.Vectors {
		t.Run(v.ID, func(t *testing.T) {
			args := vectorArgs(t, v)
			status, out := runVerify(t, args...)
			if status != v.Expect.Exit {
				t.Errorf("exit %d, want %d: %s", status, v.Expect.Exit, out)
			}
			if v.Kind == "cassette" {
				status, verdict, what := verifyCLI(t, append([]string{"--json"}, args...)...)
				want := v.Expect.Signature
				if v.Expect.Error != "" {
					want = v.Expect.Error
				}
				if status != v.Expect.Exit || verdict != v.Expect.Verdict || what != want {
					t.Errorf("--json: exit %d %s %s, want exit %d %s %s", status, verdict, what, v.Expect.Exit, v.Expect.Verdict, want)
				}
				var f struct{ Findings []struct{ Code string } }
				var buf bytes.Buffer
				run(append([]string{"--json"}, args...), &buf, new(bytes.Buffer))
				_ = json.Unmarshal(buf.Bytes(), &f)
				var codes []string
				for _, x := range f.Findings {
					codes = append(codes, x.Code)
				}
				if !slices.Equal(codes, v.Expect.Findings) {
					t.Errorf("findings %v, want %v", codes, v.Expect.Findings)
				}
				return
			}
			line := commitLine.ReplaceAllString(out, "")
			wantLine := "OK "
			if v.Expect.Status != "" {
				// A commit's line: RECORDED, UNBOUND, or REFUSED CODE.
				wantLine = strings.ToUpper(v.Expect.Status) + " "
			}
			if v.Expect.Code != nil {
				wantLine = "REFUSED " + *v.Expect.Code + ": "
			}
			if !strings.HasPrefix(line, wantLine) {
				t.Errorf("line %q, want %q...", out, wantLine)
			}
			var buf, errb bytes.Buffer
			status = run(append([]string{"--json"}, args...), &buf, &errb)
			var j struct {
				OK     bool
				Code   *string
				Level  *string
				Status string
			}
			if err := json.NewDecoder(&buf).Decode(&j); err != nil {
				t.Fatalf("--json: %v: %s", err, errb.String())
			}
			if status != v.Expect.Exit || j.OK != v.Expect.OK || fmt.Sprint(deref(j.Code)) != fmt.Sprint(deref(v.Expect.Code)) {
				t.Errorf("--json: exit %d ok %v code %v, want exit %d ok %v code %v", status, j.OK, deref(j.Code), v.Expect.Exit, v.Expect.OK, deref(v.Expect.Code))
			}
			if j.Status != v.Expect.Status {
				t.Errorf("--json: status %q, want %q", j.Status, v.Expect.Status)
			}
			if v.Expect.Level != "" && (j.Level == nil || *j.Level != v.Expect.Level) {
				t.Errorf("--json: level %v, want %s", deref(j.Level), v.Expect.Level)
			}
		})
	}
}

// vectorArgs are a vector's arguments as this test runs them: paths
// under testdata, $REPO a repository made from the vector's stream.
func vectorArgs(t *testing.T, v vector) []string {
	t.Helper()
	args := make([]string, len(v.Args))
	for i, a := range v.Args {
		switch {
		case a == conformanceRepo:
			args[i] = commitRepo(t, filepath.Join(testdata, v.Repo))
		case strings.Contains(a, "/"):
			args[i] = filepath.Join(testdata, a)
		default:
			args[i] = a
		}
	}
	return args
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
