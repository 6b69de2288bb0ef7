package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// cassetteOpts are the verifier options of one cassette case, as files.
type cassetteOpts struct {
	pubkeys, revoked []string
	hmac             string
	strict           bool
}

type cassetteCase struct {
	group, path string
	opts        cassetteOpts
}

// cassetteResult is the part of `logbook-verify --json` and of
// window.runbackVerify that must agree.
type cassetteResult struct {
	Verdict        string         `json:"verdict"`
	RunbackVerdict string         `json:"runback_verdict"`
	Checks         map[string]any `json:"checks"`
	Failed         []string       `json:"failed_checks"`
	FirstBad       int            `json:"first_bad_event"`
	Findings       []struct {
		Code  string
		Count int
	} `json:"findings"`
	Error *struct{ Code string } `json:"error"`
}

func (r cassetteResult) key() string {
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, fmt.Sprintf("%s×%d", f.Code, f.Count))
	}
	slices.Sort(codes)
	checks, _ := json.Marshal(r.Checks)
	errCode := ""
	if r.Error != nil {
		errCode = r.Error.Code
	}
	return fmt.Sprintf("verdict=%s runback=%s checks=%s failed=%v first_bad=%d findings=%v error=%s",
		r.Verdict, r.RunbackVerdict, checks, r.Failed, r.FirstBad, codes, errCode)
}

// TestCassetteDifferential runs every cassette fixture, runback's shared
// cases and samples (when ../shared is there), and randomly made
// cassettes full of what JavaScript and Go read differently unless done
// with care (duplicate keys, lone surrogates, 1E400, big integers, own
// __proto__, keys that sort differently by code point and by UTF-16)
// through window.runbackVerify in headless Chromium, whose reader is V8's
// own JSON.parse, and through `logbook-verify --json`. Both must give the
// same verdict, checks, findings and errors, and the command's exit status
// must be runback's for its verdict. LOGBOOK_DIFF_SEED replays a run.
func TestCassetteDifferential(t *testing.T) {
	t.Parallel()
	fix := "../testdata/runback"
	var want map[string]struct {
		Options struct {
			Pinned, Revoked []string
			HMAC, Strict    bool
		} `json:"options"`
	}
	data, err := os.ReadFile(filepath.Join(fix, "EXPECTED.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	var cases []cassetteCase
	for name, w := range want {
		o := cassetteOpts{strict: w.Options.Strict}
		for _, k := range w.Options.Pinned {
			o.pubkeys = append(o.pubkeys, filepath.Join(fix, k+".pub"))
		}
		for _, k := range w.Options.Revoked {
			o.revoked = append(o.revoked, filepath.Join(fix, k+".pub"))
		}
		if w.Options.HMAC {
			o.hmac = filepath.Join(fix, "hmac.key")
		}
		cases = append(cases, cassetteCase{"fixtures", filepath.Join(fix, name+".json"), o})
		cases = append(cases, cassetteCase{"fixtures default pins", filepath.Join(fix, name+".json"), cassetteOpts{}})
	}
	if sharedDir, ok := corpora.Optional(t, "samples/runback", "runback's 16 cases and 3 samples through both verifiers (fixtures and random cassettes still run)"); ok {
		o := cassetteOpts{pubkeys: []string{filepath.Join(sharedDir, "testkey.ed25519.pub.pem")}, hmac: filepath.Join(sharedDir, "testkey.hmac.txt")}
		files, _ := filepath.Glob(filepath.Join(sharedDir, "cases", "*.json"))
		samples, _ := filepath.Glob(filepath.Join(sharedDir, "sample-cassette.*.json"))
		for _, f := range append(files, samples...) {
			if filepath.Base(f) == "EXPECTED.json" {
				continue
			}
			cases = append(cases, cassetteCase{"runback shared", f, o}, cassetteCase{"runback shared default pins", f, cassetteOpts{}})
		}
	}

	seed := uint64(rand.Int64())
	if s := os.Getenv("LOGBOOK_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("random cassettes: LOGBOOK_DIFF_SEED=%d", seed)
	r := rand.New(rand.NewPCG(seed, 15))
	dir := t.TempDir()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{15}, 32))
	_, pubPEM, err := keys.MarshalPair(priv, priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(dir, "random.pub")
	writeFile(t, pub, pubPEM)
	for i := 0; i < 300; i++ {
		c := randomCassette(t, r, priv)
		if i%10 == 9 { // and some damaged: one byte changed
			p := r.IntN(len(c))
			c[p] ^= byte(1 + r.IntN(0x7f))
		}
		path := filepath.Join(dir, fmt.Sprintf("random%d.json", i))
		writeFile(t, path, c)
		cases = append(cases, cassetteCase{"random", path, cassetteOpts{pubkeys: []string{pub}, strict: i%3 == 0}})
	}

	b := newBrowser(t)
	pems := map[string]string{}
	text := func(p string) string {
		if _, ok := pems[p]; !ok {
			d, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			pems[p] = string(d)
		}
		return pems[p]
	}
	groups, verdicts := map[string]int{}, map[string]int{}
	disagree := 0
	for _, c := range cases {
		cli := cliCassette(t, c)
		opts := map[string]any{"strict": c.opts.strict}
		var pk, rk []string
		for _, p := range c.opts.pubkeys {
			pk = append(pk, text(p))
		}
		for _, p := range c.opts.revoked {
			rk = append(rk, text(p))
		}
		opts["pubkeys"], opts["revoked"] = pk, rk
		if c.opts.hmac != "" {
			opts["hmacKeys"] = []string{strings.TrimSuffix(strings.TrimSuffix(text(c.opts.hmac), "\n"), "\r")}
		}
		o, _ := json.Marshal(opts)
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		page, err := evalJS[cassetteResult](b, `runbackVerify(`+bytesExpr(data)+`, `+string(o)+`)`)
		if err != nil {
			t.Fatalf("%s: runbackVerify: %v", c.path, err)
		}
		groups[c.group]++
		verdicts[cli.Verdict]++
		if page.key() != cli.key() {
			disagree++
			if disagree <= 20 {
				t.Errorf("%s (%s): the page and logbook-verify disagree\n page: %s\n  cli: %s", c.path, c.group, page.key(), cli.key())
			}
			if keep := os.Getenv("LOGBOOK_DIFF_KEEP"); keep != "" {
				_ = os.WriteFile(filepath.Join(keep, filepath.Base(c.path)), data, 0o644)
			}
		}
	}
	b.checkQuiet(t)
	summary := fmt.Sprintf("cassette differential: %d comparisons (%s), %d disagreements; verdicts %s", len(cases), counts(groups), disagree, counts(verdicts))
	t.Log(summary)
	report(t, summary)
}

// cliCassette runs logbook-verify --json on a cassette; its exit status
// must be runback's for the verdict (0 valid, 1 invalid or error, 2 unverified).
func cliCassette(t *testing.T, c cassetteCase) cassetteResult {
	args := []string{"--json", "--cassette"}
	for _, p := range c.opts.pubkeys {
		args = append(args, "--pubkey", p)
	}
	for _, p := range c.opts.revoked {
		args = append(args, "--revoked", p)
	}
	if c.opts.hmac != "" {
		args = append(args, "--hmac-key", c.opts.hmac)
	}
	if c.opts.strict {
		args = append(args, "--strict")
	}
	out, err := exec.Command(filepath.Join(bin, "logbook-verify"), append(args, c.path)...).Output()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var res cassetteResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v in %q", c.path, err, out)
	}
	if want := map[string]int{"valid": 0, "invalid": 1, "unverified": 2}[res.Verdict]; status != want {
		t.Errorf("%s: exit %d for verdict %s", c.path, status, res.Verdict)
	}
	return res
}

// randomCassette writes a signed cassette around random JSON text, hashed
// by Go's reader: where V8 reads the text otherwise, the page's chain check
// fails and the comparison shows it.
func randomCassette(t *testing.T, r *rand.Rand, priv ed25519.PrivateKey) []byte {
	g := jsonGen{r: r}
	var evs []string
	evs = append(evs, `{"schema_version":1,"run_id":"run_rand","span_id":"r","parent_span_id":null,"seq":0,"type":"run","phase":"start","status":"running","input":`+g.value(0)+`}`)
	n := 1 + r.IntN(5)
	for i := 1; i <= n; i++ {
		seq := i
		if r.IntN(8) == 0 {
			seq = r.IntN(n + 1)
		}
		switch r.IntN(3) {
		case 0:
			evs = append(evs, fmt.Sprintf(`{"run_id":"run_rand","seq":%d,"type":"tool","tool_name":%s,"input":%s,"output":%s,"error":null%s}`,
				seq, g.str(), g.value(0), g.value(0), g.projection()))
		case 1:
			evs = append(evs, fmt.Sprintf(`{"run_id":"run_rand","seq":%d,"type":"llm","model":{"model_id":%s},"request":%s,"response":%s,"error":%s}`,
				seq, g.str(), g.value(0), g.value(0), []string{"null", `{"name":"E"}`, `""`, "0"}[r.IntN(4)]))
		default:
			evs = append(evs, fmt.Sprintf(`{"run_id":"run_rand","seq":%d,"type":"env","kind":%s,"key":%s,"output":%s}`, seq, g.str(), g.str(), g.value(0)))
		}
	}
	status := []string{`"completed"`, `"error"`}[r.IntN(2)]
	if r.IntN(5) > 0 {
		evs = append(evs, `{"run_id":"run_rand","seq":`+strconv.Itoa(n+1)+`,"type":"run","phase":"end","status":`+status+`,"output":`+g.value(1)+`,"error":null}`)
	}
	// Hash each event as Go reads it, and append its _hash as text.
	var parsed []js.Value
	for i, e := range evs {
		v, _, err := js.Parse([]byte(e))
		if err != nil {
			t.Fatalf("generated event %q: %v", e, err)
		}
		parsed = append(parsed, *v)
		_ = i
	}
	hashes, digest := oracle.Chain(parsed)
	cd, entries, err := oracle.CassetteDigest(parsed)
	if err != nil {
		cd, entries = "unknown", 0 // runback throws on this one too
	}
	for i := range evs {
		evs[i] = evs[i][:len(evs[i])-1] + `,"_hash":"` + hashes[i] + `"}`
	}
	sig := ed25519.Sign(priv, []byte(digest+":"+cd))
	pemText, _ := json.Marshal(string(mustPEM(priv)))
	return []byte(fmt.Sprintf(`{"$schema":"runback.audit/v2","manifest":{"run_id":"run_rand","event_count":%d,"content_digest":"%s","replay":{"cassette_digest":"%s","entry_count":%d},"signed":true,"signature":{"alg":"Ed25519","value":"%s","pubkey":%s}},"run":{"run_id":"run_rand","status":%s},"events":[%s]}`,
		len(evs), digest, cd, entries, hex.EncodeToString(sig), pemText, status, strings.Join(evs, ",\n")))
}

func mustPEM(priv ed25519.PrivateKey) []byte {
	_, pub, err := keys.MarshalPair(priv, priv.Public().(ed25519.PublicKey))
	if err != nil {
		panic(err)
	}
	return pub
}

// jsonGen writes random JSON text that stresses the two readers.
type jsonGen struct{ r *rand.Rand }

func (g jsonGen) value(depth int) string {
	switch k := g.r.IntN(10); {
	case depth > 3 || k < 3:
		return g.scalar()
	case k < 6:
		var items []string
		for i := g.r.IntN(4); i > 0; i-- {
			items = append(items, g.value(depth+1))
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		var ms []string
		var keys []string
		for i := g.r.IntN(5); i > 0; i-- {
			k := g.key()
			if len(keys) > 0 && g.r.IntN(6) == 0 {
				k = keys[g.r.IntN(len(keys))] // a duplicate
			}
			keys = append(keys, k)
			ms = append(ms, k+":"+g.value(depth+1))
		}
		return "{" + strings.Join(ms, ",") + "}"
	}
}

func (g jsonGen) scalar() string {
	switch g.r.IntN(9) {
	case 0:
		return []string{"null", "true", "false", "-0", "0"}[g.r.IntN(5)]
	case 1, 2, 3:
		return g.number()
	}
	return g.str()
}

func (g jsonGen) number() string {
	switch g.r.IntN(6) {
	case 0:
		return strconv.FormatInt(g.r.Int64N(1<<62)-1<<61, 10)
	case 1: // beyond 2^53
		d := strconv.FormatUint(g.r.Uint64(), 10) + strconv.Itoa(g.r.IntN(1000))
		return strings.TrimLeft(d, "0") + "1"
	case 2:
		return fmt.Sprintf("%d.%de%d", g.r.IntN(100), g.r.IntN(100000), g.r.IntN(800)-400)
	case 3:
		return []string{"1E400", "-1e999", "5e-324", "1e21", "1e-7", "0.000001", "123456789012345680000", "1.7976931348623157e308", "2.5e-310"}[g.r.IntN(9)]
	case 4:
		return strconv.FormatFloat(g.r.NormFloat64()*1e6, 'g', -1, 64)
	}
	return strconv.FormatFloat(g.r.Float64(), 'f', g.r.IntN(20), 64)
}

var pieces = []string{"a", "Z", "0", " ", "é", "中", "😀", "\u2028", "\u007f", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u0000", "\\u001f",
	"\\ud800", "\\udc00", "\\udbff\\udfff", "\\ud83d\\ude00", "\\uffff", "\ufffd", "\ue000", "～", "<>&", "\\u00e9", "\U0001f600"}

func (g jsonGen) str() string {
	var b strings.Builder
	b.WriteByte('"')
	for i := g.r.IntN(6); i > 0; i-- {
		b.WriteString(pieces[g.r.IntN(len(pieces))])
	}
	b.WriteByte('"')
	return b.String()
}

func (g jsonGen) key() string {
	switch g.r.IntN(8) {
	case 0:
		return `"__proto__"`
	case 1:
		return `"` + strconv.Itoa(g.r.IntN(20)) + `"`
	case 2:
		return `"_hash"`
	}
	return g.str()
}

func (g jsonGen) projection() string {
	switch g.r.IntN(5) {
	case 0:
		return `,"key_projection":{"drop":["` + []string{"a", "a.b", "0", "__proto__", "x.y.z"}[g.r.IntN(5)] + `"]}`
	case 1:
		return `,"key_projection":{"keep":["a","b.c"]}`
	}
	return ""
}

// TestCassettePage drops a cassette on the page: it is detected by its
// $schema, judged valid with the signer's key pasted, and its events are
// shown as a timeline; a tampered one is invalid with the bad event marked.
func TestCassettePage(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	pub, err := os.ReadFile("../testdata/runback/fixture.pub")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := evalJS[chromedp.Void](b, `document.getElementById('pubkeys').value = `+jsString(string(pub))); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Verdict string `json:"verdict"`
		Rows    int    `json:"rows"`
		Bad     int    `json:"bad"`
		Text    string `json:"text"`
	}
	look := func() view {
		v, err := evalJS[view](b, `(() => ({
			verdict: document.getElementById('verdict').dataset.verdict || '',
			rows: document.querySelectorAll('#timeline tr').length,
			bad: document.querySelectorAll('#timeline tr.bad').length,
			text: document.getElementById('verdict').textContent,
		}))()`)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	b.drop(t, "../testdata/runback/valid_ed25519.json")
	if v := look(); v.Verdict != "valid" || v.Rows != 8 || v.Bad != 0 {
		t.Errorf("valid cassette shown as %+v", v)
	}
	shot := func(name string) {
		ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(screenshotDir(t), name)
		writeFile(t, p, png)
		report(t, "cassette screenshot: "+p)
	}
	shot("cassette-valid.png")
	b.drop(t, "../testdata/runback/invalid_event_edited.json")
	if v := look(); v.Verdict != "invalid" || v.Rows != 8 || v.Bad != 1 || !strings.Contains(v.Text, "FAIL at events[2]") {
		t.Errorf("tampered cassette shown as %+v", v)
	}
	shot("cassette-tampered.png")
	b.drop(t, "../testdata/runback/valid_hmac.json")
	if v := look(); v.Verdict != "unverified" || !strings.Contains(v.Text, "custody of a shared secret") {
		t.Errorf("HMAC cassette without key shown as %+v", v)
	}
	b.checkQuiet(t)
}

// TestCassetteReaderNotJSONParse: Chromium 148's JSON.parse, warmed up,
// invents or drops keys when an escaped one-character key repeats in an
// object; Node's does not, and runback hashes what Node reads. The page's
// own reader must give the right keys every time.
func TestCassetteReaderNotJSONParse(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	type counts struct{ Native, Ours int }
	c, err := evalJS[counts](b, `(() => {
		const lits = ['"\\""', '"\\\\"', '"\\t"', '"\\n"', '"\\/"', '"a"', '"Z"', '"0"', '"\\u0000"', '"\\ud800"', '"é"', '"~"'];
		let seed = 7, nat = 0, ours = 0;
		const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0);
		for (let n = 0; n < 20000; n++) {
			const parts = [], want = new Set();
			for (let i = 1 + rnd() % 5; i > 0; i--) {
				const l = lits[rnd() % lits.length];
				parts.push(l + ':' + i);
				want.add(JSON.parse(l)); // a string value, not a key: read right
			}
			const text = '{"x":[{' + parts.join(',') + '}]}';
			const w = [...want].sort().join('\\u0001');
			if (Object.keys(JSON.parse(text).x[0]).sort().join('\\u0001') !== w) nat++;
			if (Object.keys(logbook.cassette.parse(text).x[0]).sort().join('\\u0001') !== w) ours++;
		}
		return { Native: nat, Ours: ours };
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("of 20,000 objects, the browser's JSON.parse got the keys wrong %d times, the page's reader %d", c.Native, c.Ours)
	if c.Ours != 0 {
		t.Fatalf("the page's reader got duplicate escaped keys wrong %d times", c.Ours)
	}
}
