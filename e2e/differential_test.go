package e2e

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// diffCase is one record file run through both verifiers.
type diffCase struct {
	group   string   // where it comes from, for the counts
	path    string   // the file
	pubkeys []string // --pubkey files (SPKI PEM)
	want    string   // for fixtures: the code the name promises ("" accepted); else "-"
}

// TestBrowserDifferential runs every record fixture, every JSONTestSuite
// file and as many freshly sealed random records (each also re-encoded and
// damaged) through window.logbookVerify in headless Chromium and through
// `logbook-verify --json`, and requires the same ok, code, recordId, keyId
// and stepCount from both. LOGBOOK_DIFF_SEED replays a run's random part.
func TestBrowserDifferential(t *testing.T) {
	t.Parallel()
	fixtures, _ := filepath.Glob("../testdata/records/*.json")
	var suite []string
	if dir, ok := corpora.Optional(t, "corpora/jsontestsuite", "JSONTestSuite's 318 files through both verifiers (the fixtures and random records still run)"); ok {
		suite, _ = filepath.Glob(filepath.Join(dir, "*.json"))
		if len(suite) != 318 {
			t.Fatalf("found %d JSONTestSuite files, want 318", len(suite))
		}
	}
	if len(fixtures) < 50 {
		t.Fatalf("found %d fixtures, want ≥ 50", len(fixtures))
	}
	fixturePub := "../testdata/keys/fixture.key.pub"
	var cases []diffCase
	for _, f := range fixtures {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		want := ""
		if strings.HasPrefix(name, "fail_") {
			want = codeInName(name)
		}
		cases = append(cases, diffCase{"fixtures pinned", f, []string{fixturePub}, want})
		cases = append(cases, diffCase{"fixtures unpinned", f, nil, "-"})
	}
	for _, f := range suite {
		cases = append(cases, diffCase{"JSONTestSuite", f, nil, "-"})
	}

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LOGBOOK_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("random records: LOGBOOK_DIFF_SEED=%d", seed)
	g := newRecGen(seed)
	dir := t.TempDir()
	otherPEM, err := os.ReadFile("../testdata/keys/other.key")
	if err != nil {
		t.Fatal(err)
	}
	other, err := keys.ParsePrivateKeyPEM(otherPEM)
	if err != nil {
		t.Fatal(err)
	}
	nRandom := len(fixtures) + 318 // as many as the fixed cases, corpora or not
	for i := 0; i < nRandom; i++ {
		rec, priv, err := g.sealed()
		if err != nil {
			t.Fatal(err)
		}
		own := filepath.Join(dir, fmt.Sprintf("key%d.pub", i))
		_, pubPEM, err := keys.MarshalPair(priv, priv.Public().(ed25519.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, own, pubPEM)
		pins := [][]string{nil, {own}, {fixturePub}, {fixturePub, own}}
		pick := func() []string { return pins[g.r.IntN(len(pins))] }
		sealed := filepath.Join(dir, fmt.Sprintf("sealed%d.json", i))
		writeFile(t, sealed, rec)
		cases = append(cases, diffCase{"sealed random", sealed, pick(), "-"})
		re, err := g.reencode(rec)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("reencoded%d.json", i))
		writeFile(t, path, re)
		cases = append(cases, diffCase{"re-encoded random", path, pick(), "-"})
		path = filepath.Join(dir, fmt.Sprintf("damaged%d.json", i))
		writeFile(t, path, g.damage(re, other))
		cases = append(cases, diffCase{"damaged random", path, pick(), "-"})
	}

	// The command runs on two workers while the page takes the files one
	// at a time.
	cli := make([]verdict, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	next := make(chan int, len(cases))
	for i := range cases {
		next <- i
	}
	close(next)
	for w := 0; w < 2; w++ {
		wg.Go(func() {
			for i := range next {
				cli[i], errs[i] = cliVerify(cases[i].path, cases[i].pubkeys)
			}
		})
	}
	b := newBrowser(t)
	pems := map[string]string{}
	page := make([]verdict, len(cases))
	split, canSplit := 0, 0
	for i, c := range cases {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, p := range c.pubkeys {
			if _, ok := pems[p]; !ok {
				pem, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				pems[p] = string(pem)
			}
			texts = append(texts, pems[p])
		}
		if page[i], err = b.verify(data, texts); err != nil {
			t.Fatalf("%s: window.logbookVerify: %v", c.path, err)
		}
		s, err := b.verifySplit(data, texts)
		if err != nil {
			t.Fatalf("%s: the split check: %v", c.path, err)
		}
		if !s.Same {
			t.Errorf("%s (%s): the check in parts (js/split.js) and the check whole disagree", c.path, c.group)
		}
		if c.group == "sealed random" && s.OK && s.Steps >= 2 {
			canSplit++
			if s.Split >= 2 {
				split++
			}
		}
	}
	// A sealed record's steps are canonical, cut between steps
	// (},{"at":"): only a data member that holds the same bytes makes a
	// cut fail, and the record is then checked whole.
	if canSplit > 0 && split*10 < canSplit*9 {
		t.Errorf("the split check split %d of %d accepted sealed records of 2 steps or more, want 90%%", split, canSplit)
	}
	t.Logf("split check: %d of %d accepted sealed records of 2 steps or more were checked in parts", split, canSplit)
	wg.Wait()

	files := map[string]bool{}
	groups := map[string]int{}
	codes := map[string]int{}
	disagree := 0
	for i, c := range cases {
		if errs[i] != nil {
			t.Fatalf("%s: logbook-verify: %v", c.path, errs[i])
		}
		files[c.path] = true
		groups[c.group]++
		codes[page[i].code()]++
		if !same(page[i], cli[i]) {
			disagree++
			if disagree <= 20 {
				t.Errorf("%s (%s, pinned %v): the page and logbook-verify disagree\n page: %v\n  cli: %v", c.path, c.group, c.pubkeys, page[i], cli[i])
			}
		}
		if c.want != "-" && page[i].code() != c.want {
			t.Errorf("%s: page verdict %s, the fixture's name says %q", c.path, page[i], c.want)
		}
	}
	b.checkQuiet(t)
	summary := fmt.Sprintf("browser differential: %d files checked (%d comparisons: %s), %d disagreements; page verdicts %s",
		len(files), len(cases), counts(groups), disagree, counts(codes))
	t.Log(summary)
	report(t, summary)
}

// codeInName reads CODE from fail_CODE_detail: the longest known code that
// prefixes the rest of the name.
func codeInName(name string) string {
	rest := strings.TrimPrefix(name, "fail_")
	best := ""
	for _, c := range []string{"NOT_JSON", "SHAPE", "STEP_OUT_OF_ORDER", "CHAIN_BROKEN", "STEP_COUNT_MISMATCH",
		"TIP_MISMATCH", "SIGNATURE_INVALID", "SIGNER_NOT_TRUSTED", "TOMBSTONED"} {
		if strings.HasPrefix(rest, c+"_") && len(c) > len(best) {
			best = c
		}
	}
	return best
}

// cliVerify runs logbook-verify --json; its exit status must agree with
// the verdict (0 accepted, 1 refused).
func cliVerify(path string, pubkeys []string) (verdict, error) {
	args := []string{"--json"}
	for _, p := range pubkeys {
		args = append(args, "--pubkey", p)
	}
	out, err := exec.Command(filepath.Join(bin, "logbook-verify"), append(args, path)...).Output()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		return verdict{}, err
	}
	var v verdict
	if err := json.Unmarshal(out, &v); err != nil {
		return v, fmt.Errorf("output %q: %v", out, err)
	}
	if (status == 0) != v.OK || status > 1 {
		return v, fmt.Errorf("exit status %d with verdict %v", status, v)
	}
	return v, nil
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		name := k
		if name == "" {
			name = "accepted"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }

func writeFile(t *testing.T, path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// report puts a line in the report scripts/test.sh prints.
func report(t *testing.T, line string) { testreport.Line(t, line) }
