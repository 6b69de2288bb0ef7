package digest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// canonBoth returns the canonical form from the tree and from the stream.
func canonBoth(t testing.TB, text []byte) (tree, stream []byte, ok bool) {
	v, err := strictjson.Parse(text, strictjson.Options{Lenient: true, MaxDepth: 1000})
	if err != nil || v.Flags != 0 {
		return nil, nil, false
	}
	tree, err = jcs.Append(nil, v)
	if err != nil {
		return nil, nil, false // a number outside double range
	}
	// Every container level at a time: the tree path is what it is
	// compared with.
	defer func(n int) { jcs.TreeUnder = n }(jcs.TreeUnder)
	jcs.TreeUnder = 0
	var b jcs.Buffer
	if v.Kind == strictjson.Array || v.Kind == strictjson.Object {
		err = b.AppendText(text, strictjson.Options{Lenient: true, MaxDepth: 1000}, nil)
	} else {
		err = b.Append(v)
	}
	if err != nil {
		t.Fatalf("stream failed where the tree did not: %v", err)
	}
	return tree, b.B, true
}

// TestStreamMatchesTree: the level-at-a-time canonical form equals the
// tree's on every synthesized payload of every harness.
func TestStreamMatchesTree(t *testing.T) {
	var texts [][]byte
	for _, n := range []string{"short", "tool_heavy", "subagent"} {
		s, _ := synth.Claude(n)
		texts = append(texts, s.Events...)
	}
	for _, h := range append(synth.Harnesses[1:], "copilot-cli-snake") {
		s, _ := synth.Dialect(h)
		texts = append(texts, s.Events...)
	}
	for _, p := range synth.ClaudePayloads() {
		texts = append(texts, p.JSON)
	}
	if n := compareStream(t, texts, nil); n < 150 {
		t.Fatalf("compared only %d payloads", n)
	}
}

// TestStreamMatchesTreeCorpora: the same on the RFC 8785 vectors, the
// JSONTestSuite's valid texts and the real hook payloads (conformance).
func TestStreamMatchesTreeCorpora(t *testing.T) {
	var files []string
	for _, g := range []string{"corpora/jcs/input/*.json", "corpora/jsontestsuite/y_*.json", "samples/hooks/claude-code/*.json"} {
		files = append(files, corpora.Glob(t, g, "stream against tree on the public JSON corpora")...)
	}
	var texts [][]byte
	for _, f := range files {
		text, _ := os.ReadFile(f)
		texts = append(texts, text)
	}
	if n := compareStream(t, texts, files); n < 150 {
		t.Fatalf("compared only %d files", n)
	}
}

func compareStream(t *testing.T, texts [][]byte, names []string) int {
	n := 0
	for i, text := range texts {
		tree, stream, ok := canonBoth(t, text)
		if !ok {
			continue
		}
		n++
		if !bytes.Equal(tree, stream) {
			name := fmt.Sprint(i)
			if names != nil {
				name = names[i]
			}
			t.Errorf("%s:\ntree   %q\nstream %q", name, tree, stream)
		}
	}
	return n
}

// TestWideBodyStaysSmall: a body of a million numbers is digested without a
// tree of a million values (the tree would take about 90 MB).
func TestWideBodyStaysSmall(t *testing.T) {
	body := append([]byte{'['}, bytes.Repeat([]byte("0,"), 1_000_000)...)
	body = append(body[:len(body)-1], ']')
	payload := append(append([]byte(`{"tool_response":`), body...), '}')
	top, err := strictjson.Shallow(payload, strictjson.Options{Lenient: true, MaxDepth: maxDepth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := top.Get("tool_response")
	if len(v.Items) != 0 {
		t.Fatal("a shallow read kept the items")
	}
	got, raw := Body(v, payload)
	if raw || got != Bytes(body) { // [0,0,…] is already canonical
		t.Fatalf("digest %s raw %v", got, raw)
	}
}

// FuzzStream: for any JSON text with a canonical form, stream == tree.
func FuzzStream(f *testing.F) {
	f.Add([]byte(`{"b":[1,{"z":null,"a":"\u00e9"}],"a":1.5e3}`))
	f.Add([]byte(`[[],{},[{"\ud83d\ude00":1,"\uffff":2}]]`))
	f.Fuzz(func(t *testing.T, text []byte) {
		tree, stream, ok := canonBoth(t, text)
		if ok && !bytes.Equal(tree, stream) {
			t.Fatalf("tree %q stream %q", tree, stream)
		}
	})
}

// TestDeepBody: a body nested 10,000 deep is read as a tree (once, not
// once per level); one whose long containers nest deeper than
// maxLongLevels is digested over its exact text and says so.
func TestDeepBody(t *testing.T) {
	deep := []byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000))
	payload := append(append([]byte(`{"tool_response":`), deep...), '}')
	top, err := strictjson.Shallow(payload, strictjson.Options{Lenient: true, MaxDepth: maxDepth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, raw := Body(top.Get("tool_response"), payload); raw || got != Bytes(deep) {
		t.Fatalf("deep small body: %s raw %v", got, raw)
	}
	long := []byte(strings.Repeat("[", 40) + `"` + strings.Repeat("x", 2*jcs.TreeUnder) + `"` + strings.Repeat("]", 40))
	payload = append(append([]byte(`{"tool_response":`), long...), '}')
	top, err = strictjson.Shallow(payload, strictjson.Options{Lenient: true, MaxDepth: maxDepth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, raw := Body(top.Get("tool_response"), payload); !raw || got != Bytes(long) {
		t.Fatalf("deep long body: %s raw %v", got, raw)
	}
	long = long[40-maxLongLevels+1 : len(long)-40+maxLongLevels-1] // within the bound
	payload = append(append([]byte(`{"tool_response":`), long...), '}')
	top, _ = strictjson.Shallow(payload, strictjson.Options{Lenient: true, MaxDepth: maxDepth}, nil)
	if got, raw := Body(top.Get("tool_response"), payload); raw || got != Bytes(long) {
		t.Fatalf("long body within the bound: %s raw %v", got, raw)
	}
}
