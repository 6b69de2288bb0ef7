package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
	"github.com/logbook-project/logbook/internal/transcript"
)

var updateEvidence = flag.Bool("update-evidence", false, "rewrite testdata/evidence")

const evidenceDir = "../../testdata/evidence"

// evidenceFixtures are testdata/evidence's files: for each NAME a record
// (NAME.json, signed with reviewtest.Key, signer.pub) and the transcript
// given as its evidence (NAME.jsonl), from twoTurns; fail_CODE_* are
// refused with CODE by logbook-verify --pubkey signer.pub --evidence
// NAME.jsonl NAME.json, good_* accepted. The same bytes on every run.
func evidenceFixtures(t *testing.T) map[string][]byte {
	lines := twoTurns()
	join := func(l []string) []byte { return []byte(strings.Join(l, "\n") + "\n") }
	batched, err := reviewtest.Record(hooksWithBatches(t, string(join(lines))))
	if err != nil {
		t.Fatal(err)
	}
	events, _, err := transcript.Convert(bytes.NewReader(join(lines)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := transcript.WriteJSONL(&buf, events); err != nil {
		t.Fatal(err)
	}
	unbatched, err := reviewtest.Record(strings.Split(strings.TrimSpace(buf.String()), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	// edit copies the lines and edits line n (1-based) with the
	// replacer; at < 0 removes it; ins puts after line n an edited copy
	// of line at.
	edit := func(n int, r *strings.Replacer) []string {
		l := append([]string(nil), lines...)
		l[n-1] = r.Replace(l[n-1])
		return l
	}
	remove := func(ns ...int) []string {
		var l []string
		for i, s := range lines {
			keep := true
			for _, n := range ns {
				keep = keep && i != n-1
			}
			if keep {
				l = append(l, s)
			}
		}
		return l
	}
	order := func(ns ...int) []string {
		var l []string
		for _, n := range ns {
			l = append(l, lines[n-1])
		}
		return l
	}
	ins := func(n int, r *strings.Replacer, from ...int) []string {
		l := append([]string(nil), lines[:n]...)
		for _, k := range from {
			l = append(l, r.Replace(lines[k-1]))
		}
		return append(l, lines[n:]...)
	}
	_, pub, err := keys.MarshalPair(reviewtest.Key, reviewtest.Key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"signer.pub": pub}
	add := func(name string, rec []byte, l []string) {
		out[name+".json"], out[name+".jsonl"] = rec, join(l)
	}
	add("good_batched", batched, lines)
	add("fail_EVIDENCE_DIFFERS_read_text", batched, edit(5, strings.NewReplacer(`"content":"PASS"`, `"content":"PASS (edited)"`)))
	add("fail_EVIDENCE_DIFFERS_prompt", batched, edit(1, strings.NewReplacer("fix it", "fix it now")))
	add("fail_EVIDENCE_UNRECORDED_inserted_call", batched, ins(5, strings.NewReplacer("tu-test", "tu-evil", "go test", "curl evil.example", "m2", "m2b"), 4, 5))
	add("fail_EVIDENCE_UNRECORDED_inserted_prompt", batched, ins(5, strings.NewReplacer("and lint", "also delete the backups"), 7))
	add("fail_EVIDENCE_UNRECORDED_second_result", batched, ins(5, strings.NewReplacer(`"content":"PASS"`, `"content":"FAIL: 3 tests"`), 5))
	add("fail_EVIDENCE_MOVED_call_to_first_turn", batched, order(1, 2, 3, 4, 5, 8, 9, 6, 7, 10))
	add("fail_EVIDENCE_MOVED_prompts_swapped", batched, order(7, 2, 3, 4, 5, 6, 1, 8, 9, 10))
	add("fail_EVIDENCE_ABSENT_call_removed", batched, remove(4, 5))
	add("fail_EVIDENCE_ABSENT_result_removed", batched, remove(5))
	add("fail_EVIDENCE_UNHELD_no_batches", unbatched, lines)
	add("fail_EVIDENCE_UNHELD_read_text_edited", unbatched, edit(5, strings.NewReplacer(`"content":"PASS"`, `"content":"PASS (edited)"`)))
	return out
}

// TestEvidenceFixtureFiles: testdata/evidence is the generator's
// (go test ./cmd/logbook-verify -run TestEvidenceFixtureFiles
// -update-evidence), each fail_CODE_* is refused with CODE (the first
// line and --json), each good_* accepted, and every code of
// format.EvidenceCodes has two fixtures.
func TestEvidenceFixtureFiles(t *testing.T) {
	want := evidenceFixtures(t)
	if *updateEvidence {
		if err := os.MkdirAll(evidenceDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(evidenceDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(evidenceDir, "*"))
	if len(files) != len(want) {
		t.Errorf("%d files in testdata/evidence, the generator makes %d", len(files), len(want))
	}
	per := map[format.Code]int{}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	sort.Strings(names)
	for _, name := range names {
		got, _ := os.ReadFile(filepath.Join(evidenceDir, name))
		if !bytes.Equal(got, want[name]) {
			t.Errorf("%s is not the generator's output (go test ./cmd/logbook-verify -run TestEvidenceFixtureFiles -update-evidence)", name)
		}
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		args := []string{"--pubkey", filepath.Join(evidenceDir, "signer.pub"), "--evidence", filepath.Join(evidenceDir, name+"l"), filepath.Join(evidenceDir, name)}
		code := format.Code("")
		for _, c := range format.EvidenceCodes {
			if strings.HasPrefix(name, "fail_"+string(c)+"_") {
				code = c
			}
		}
		status, out := runVerify(t, args...)
		if code == "" && (status != 0 || !strings.HasPrefix(out, "OK ")) || code != "" && (status != 1 || !strings.HasPrefix(out, "REFUSED "+string(code)+": ")) {
			t.Errorf("%s: %d %s", name, status, out)
		}
		var v struct {
			OK   bool
			Code *string
		}
		var o, e bytes.Buffer
		st := run(append([]string{"--json"}, args...), &o, &e)
		if err := json.Unmarshal(o.Bytes(), &v); err != nil || st != status || v.OK != (code == "") || (v.Code == nil) != (code == "") || v.Code != nil && *v.Code != string(code) {
			t.Errorf("%s --json: %d %s %s", name, st, o.String(), e.String())
		}
		per[code]++
	}
	for _, c := range append([]format.Code{""}, format.EvidenceCodes...) {
		if c != "" && per[c] < 2 {
			t.Errorf("%s: %d fixtures, want 2", c, per[c])
		}
	}
}
