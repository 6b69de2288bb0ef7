package e2e

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// nodeScript reads each file as runback does (readFileSync utf-8, then
// Node's own JSON.parse) and prints the digests the page's functions
// compute over that value, one JSON line per file.
const nodeScript = `
const fs = require('fs');
globalThis.logbook = {};
for (const f of ['sha256', 'cassette']) eval(fs.readFileSync(process.env.WEB + '/js/' + f + '.js', 'utf8'));
for (const file of process.argv.slice(1)) { // node -e: argv[1] is the first file
  let out;
  try {
    out = logbook.cassette.digests(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (e) {
    out = { error: e.name };
  }
  out.file = file;
  console.log(JSON.stringify(out));
}
`

// TestCassetteNode compares Go's reader and digests with Node's: the
// events' chain hashes, content_digest and the oracle-stream digest of
// every fixture, of runback's shared cases, and of random cassettes full
// of duplicate keys, lone surrogates, big and tiny numbers, own __proto__
// members and keys that sort differently by code point and by UTF-16,
// read by Node's JSON.parse (the reader runback verifies with). Node comes
// with Debian's npm, which scripts/test.sh installs.
func TestCassetteNode(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: runback's reader is Node's JSON.parse, and Go's is checked against it (scripts/test.sh installs npm, which brings node)")
	}
	files, _ := filepath.Glob("../testdata/runback/*.json")
	if dir, ok := corpora.Optional(t, "samples/runback", "runback's own cases read by Node (fixtures and random cassettes still run)"); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "cases", "*.json"))
		samples, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		files = append(files, append(more, samples...)...)
	}
	seed := uint64(rand.Int64())
	t.Logf("random cassettes: LOGBOOK_DIFF_SEED=%d", seed)
	if s := os.Getenv("LOGBOOK_DIFF_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	r := rand.New(rand.NewPCG(seed, 16))
	tmp := t.TempDir()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{16}, 32))
	for i := 0; i < 500; i++ {
		p := filepath.Join(tmp, fmt.Sprintf("random%d.json", i))
		c := randomCassette(t, r, priv)
		if i%10 == 9 { // some with one byte changed: invalid UTF-8, broken syntax, other values
			c[r.IntN(len(c))] ^= byte(1 + r.IntN(0xff))
		}
		writeFile(t, p, c)
		files = append(files, p)
	}
	web, _ := filepath.Abs("../web")
	cmd := exec.Command(node, append([]string{"-e", nodeScript}, files...)...)
	cmd.Env = append(os.Environ(), "WEB="+web)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	type digests struct {
		File     string   `json:"file"`
		Hashes   []string `json:"hashes"`
		Digest   string   `json:"digest"`
		Cassette string   `json:"cassette"`
		Entries  int      `json:"entries"`
		Error    string   `json:"error"`
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(files) {
		t.Fatalf("node printed %d lines for %d files", len(lines), len(files))
	}
	compared, disagree, deep := 0, 0, 0
	for _, l := range lines {
		var n digests
		if err := json.Unmarshal(l, &n); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(n.File)
		if err != nil {
			t.Fatal(err)
		}
		var g digests
		v, _, err := js.Parse(data)
		switch {
		case errors.Is(err, js.ErrDepth), errors.Is(err, js.ErrTooManyValues):
			// Documented differences (docs/runback.md): logbook refuses
			// nesting deeper than js.MaxDepth and more values than
			// js.BytesPerValue allows; JSON.parse has neither limit.
			deep++
			continue
		case err != nil:
			g.Error = "SyntaxError"
		case js.Prop(v, "events").Kind != js.Array:
			g.Error = "TypeError"
		default:
			ev := js.Prop(v, "events").Items
			g.Hashes, g.Digest = oracle.Chain(ev)
			if g.Cassette, g.Entries, err = oracle.CassetteDigest(ev); err != nil {
				g.Error = "TypeError"
			}
		}
		if n.Error != "" && n.Error != "SyntaxError" {
			n = digests{Error: "TypeError"} // what runback's code throws on
		}
		if g.Error != "" {
			g = digests{Error: g.Error}
		}
		name := filepath.Base(n.File)
		n.File = ""
		compared++
		if n.Error != g.Error || n.Digest != g.Digest || n.Cassette != g.Cassette || n.Entries != g.Entries || !slices.Equal(n.Hashes, g.Hashes) {
			disagree++
			if disagree <= 10 {
				t.Errorf("%s: Node and Go disagree\n node: %+v\n   go: %+v", name, n, g)
			}
		}
	}
	summary := fmt.Sprintf("cassette digests, Go against Node %s's JSON.parse: %d files, %d disagreements (%d beyond logbook's depth or value limits, not compared)", nodeVersion(node), compared, disagree, deep)
	t.Log(summary)
	report(t, summary)
}

func nodeVersion(node string) string {
	out, _ := exec.Command(node, "--version").Output()
	return string(bytes.TrimSpace(out))
}
