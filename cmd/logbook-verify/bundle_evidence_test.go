package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
	"github.com/logbook-project/logbook/internal/transcript"
	"github.com/logbook-project/logbook/internal/verdict"
)

func runVerify(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String() + errb.String()
}

func writeTemp(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBundle: a bundle round-trips, and one damaged part gives that
// part's code: the same code as checking the part alone.
func TestBundle(t *testing.T) {
	dir := t.TempDir()
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	_, pubPEM, err := keys.MarshalPair(reviewtest.Key, reviewtest.Key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	otherPriv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	_, otherPEM, _ := keys.MarshalPair(otherPriv, otherPriv.Public().(ed25519.PublicKey))
	pub := writeTemp(t, dir, "signer.pub", pubPEM)
	other := writeTemp(t, dir, "other.pub", otherPEM)
	good, err := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), Checkpoints: [][]byte{[]byte("a checkpoint note\n")}})
	if err != nil {
		t.Fatal(err)
	}
	// The record comes back out byte for byte.
	b, err := bundle.Read(good)
	if err != nil || !bytes.Equal(b.Record, bytes.TrimSpace(rec)) {
		t.Fatalf("round trip: %v", err)
	}
	bf := writeTemp(t, dir, "good.bundle.json", good)
	if code, out := runVerify(t, "--bundle", bf, "--trust", pub); code != 0 || !strings.Contains(out, "signer=pinned") || !strings.Contains(out, "1 bundled checkpoint(s) not checked") {
		t.Fatalf("good bundle: %d %s", code, out)
	}
	// Without --trust (or --pubkey): a usage error naming --trust, as
	// cosign refuses to verify without a key; a bundle re-signed by
	// another key, with that key as its signerKey, is then refused.
	if code, out := runVerify(t, "--bundle", bf); code != 2 || !strings.Contains(out, "--bundle needs --trust KEYS") || strings.Contains(out, "--pubkey") {
		t.Fatalf("good bundle, no --trust: %d %s", code, out)
	}
	resigned, err := reviewtest.RecordWith(reviewtest.Session, otherPriv)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := bundle.Write(&bundle.Bundle{Record: resigned, SignerKey: string(otherPEM)})
	rf := writeTemp(t, dir, "resigned.bundle.json", rb)
	if code, out := runVerify(t, "--bundle", rf); code != 2 {
		t.Fatalf("re-signed bundle, no --trust: %d %s", code, out)
	}
	if code, out := runVerify(t, "--bundle", rf, "--trust", pub); code != 1 || !strings.HasPrefix(out, "REFUSED SIGNER_NOT_TRUSTED") {
		t.Fatalf("re-signed bundle: %d %s", code, out)
	}
	if !bytes.Contains(good, []byte(`"mediaType": "application/vnd.logbook.bundle.v0+json"`)) {
		t.Fatalf("no mediaType:\n%s", good)
	}
	if code, out := runVerify(t, "--bundle", bf, "--trust", other); code != 1 || !strings.HasPrefix(out, "REFUSED SIGNER_NOT_TRUSTED") {
		t.Fatalf("other trust: %d %s", code, out)
	}
	// Each damaged part, and what checking that part alone says.
	recFile := writeTemp(t, dir, "rec.json", rec)
	_ = recFile
	for _, c := range []struct {
		name, from, to, code string
	}{
		{"a step edited", `make lint`, `make fmt`, "CHAIN_BROKEN"},
		{"the goal changed", `"goal":"test"`, `"goal":"tests"`, "SIGNATURE_INVALID"},
		{"the signer key swapped", strings.ReplaceAll(strings.TrimSpace(string(pubPEM)), "\n", `\n`), strings.ReplaceAll(strings.TrimSpace(string(otherPEM)), "\n", `\n`), string(BundleKeyMismatch)},
		{"the container cut", `"logProofs": []`, `"logProofs": [1]`, string(bundle.Invalid)},
		{"an unknown member", `"format"`, `"extra": 1, "format"`, string(bundle.Invalid)},
		{"a duplicate member", `"format"`, `"record": {}, "format"`, string(bundle.Invalid)},
	} {
		bad := bytes.Replace(good, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(bad, good) {
			t.Fatalf("%s: no change", c.name)
		}
		f := writeTemp(t, dir, "bad.json", bad)
		code, out := runVerify(t, "--bundle", f, "--trust", pub)
		if code != 1 || !strings.HasPrefix(out, "REFUSED "+c.code+":") {
			t.Errorf("%s: %d %s, want %s", c.name, code, out, c.code)
		}
		if c.code == "CHAIN_BROKEN" || c.code == "SIGNATURE_INVALID" {
			part := writeTemp(t, dir, "part.json", bytes.Replace(rec, []byte(c.from), []byte(c.to), 1))
			if _, alone := runVerify(t, "--pubkey", pub, part); !strings.HasPrefix(alone, "REFUSED "+c.code+":") {
				t.Errorf("%s alone: %s", c.name, alone)
			}
		}
	}
	// An attestation inside the bundle: checked under --attestor-key as
	// --attestation is; damaged, it gives ATTEST_INVALID, as alone.
	witness := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	_, witnessPEM, _ := keys.MarshalPair(witness, witness.Public().(ed25519.PublicKey))
	wpub := writeTemp(t, dir, "witness.pub", witnessPEM)
	res := record.Verify(rec, record.Options{})
	env, err := attest.Sign(attest.Statement{Type: attest.Witness, RecordID: res.RecordID, KeyID: res.KeyID, ObservedAt: "2026-05-02T00:00:00Z"}, witness)
	if err != nil {
		t.Fatal(err)
	}
	withAtt, err := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), Attestations: [][]byte{env}, AttestorKeys: []string{string(witnessPEM)}})
	if err != nil {
		t.Fatal(err)
	}
	af := writeTemp(t, dir, "att.bundle.json", withAtt)
	if code, out := runVerify(t, "--bundle", af, "--trust", pub, "--attestor-key", wpub); code != 0 || !strings.Contains(out, "attested=witness:") {
		t.Fatalf("bundle with attestation: %d %s", code, out)
	}
	if code, out := runVerify(t, "--bundle", af, "--trust", pub); code != 0 || !strings.Contains(out, "1 bundled attestation(s) not checked") {
		t.Fatalf("bundle with attestation, no attestor key: %d %s", code, out)
	}
	var sig struct {
		Signatures []struct{ Sig string } `json:"signatures"`
	}
	json.Unmarshal(env, &sig)
	s0 := sig.Signatures[0].Sig
	flipped := string(rune(s0[0]^1)) + s0[1:]
	if flipped[0] == '+' || flipped[0] == '/' {
		flipped = "A" + s0[1:]
	}
	badAtt := bytes.Replace(withAtt, []byte(s0), []byte(flipped), 1)
	bf2 := writeTemp(t, dir, "badatt.bundle.json", badAtt)
	code, out := runVerify(t, "--bundle", bf2, "--trust", pub, "--attestor-key", wpub)
	attFile := writeTemp(t, dir, "att.json", bytes.Replace(env, []byte(s0), []byte(flipped), 1))
	_, alone := runVerify(t, "--pubkey", pub, "--attestation", attFile, "--attestor-key", wpub, recFile)
	if code != 1 || !strings.HasPrefix(out, "REFUSED ATTEST_INVALID") || !strings.HasPrefix(alone, "REFUSED ATTEST_INVALID") {
		t.Fatalf("damaged attestation: bundle %d %s; alone %s", code, out, alone)
	}

	// A server's signed checkpoint inside the bundle: checked under
	// --checkpoint-key as --checkpoint is (level server); damaged, it gives
	// the code the same note gives alone.
	server := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, 32))
	_, serverPEM, _ := keys.MarshalPair(server, server.Public().(ed25519.PublicKey))
	spub := writeTemp(t, dir, "server.pub", serverPEM)
	signer, err := checkpoint.NewSigner("logbook.example", server)
	if err != nil {
		t.Fatal(err)
	}
	var tip struct{ ChainTip string }
	json.Unmarshal(rec, &tip)
	note, err := signer.Sign(checkpoint.Checkpoint{Session: "s1", Size: 24, Tip: tip.ChainTip, Time: "2026-05-01T10:00:23Z",
		Redact: strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	withCP, _ := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), Checkpoints: [][]byte{note}})
	cf := writeTemp(t, dir, "cp.bundle.json", withCP)
	if code, out := runVerify(t, "--bundle", cf, "--trust", pub, "--checkpoint-key", spub); code != 0 || !strings.Contains(out, "level=server") {
		t.Fatalf("bundle with a checkpoint: %d %s", code, out)
	}
	badNote := bytes.Replace(note, []byte("size 24\n"), []byte("size 23\n"), 1)
	if bytes.Equal(badNote, note) {
		t.Fatalf("no size line in %q", note)
	}
	badCP, _ := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), Checkpoints: [][]byte{badNote}})
	code, out = runVerify(t, "--bundle", writeTemp(t, dir, "badcp.bundle.json", badCP), "--trust", pub, "--checkpoint-key", spub)
	_, alone = runVerify(t, "--pubkey", pub, "--checkpoint", writeTemp(t, dir, "bad.checkpoint", badNote), "--checkpoint-key", spub, recFile)
	if code != 1 || first(out) != first(alone) || !strings.HasPrefix(out, "REFUSED CHECKPOINT_INVALID") {
		t.Fatalf("damaged checkpoint: bundle %d %s; alone %s", code, out, alone)
	}

	// --json gives the same code.
	bad := writeTemp(t, dir, "bad.json", bytes.Replace(good, []byte("make lint"), []byte("make fmt"), 1))
	_, out = runVerify(t, "--json", "--bundle", bad, "--trust", pub)
	var v struct {
		OK   bool
		Code string
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.OK || v.Code != "CHAIN_BROKEN" {
		t.Fatalf("json: %v %s", err, out)
	}
}

// transcriptLines is a tiny Claude Code transcript: a prompt, an Edit
// whose input lacks replace_all (Claude Code adds it before the hooks),
// a Bash call and its result, and a final message.
func transcriptLines(stdout string) string {
	l := func(s string) string { return s + "\n" }
	base := `"sessionId":"ev1","cwd":"/w","isSidechain":false,`
	return l(`{"type":"user",`+base+`"timestamp":"2026-05-01T10:00:00.000Z","message":{"role":"user","content":"fix it"}}`) +
		l(`{"type":"assistant",`+base+`"timestamp":"2026-05-01T10:00:01.000Z","message":{"id":"m1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"tu-edit","name":"Edit","input":{"file_path":"/w/a.go","old_string":"x","new_string":"y"}}]}}`) +
		l(`{"type":"user",`+base+`"timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu-edit","content":"ok"}]},"toolUseResult":{"filePath":"/w/a.go"}}`) +
		l(`{"type":"assistant",`+base+`"timestamp":"2026-05-01T10:00:03.000Z","message":{"id":"m2","model":"m","role":"assistant","content":[{"type":"tool_use","id":"tu-bash","name":"Bash","input":{"command":"go test"}}]}}`) +
		l(`{"type":"user",`+base+`"timestamp":"2026-05-01T10:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu-bash","content":"ok"}]},"toolUseResult":{"stdout":"`+stdout+`","stderr":"","interrupted":false}}`) +
		l(`{"type":"assistant",`+base+`"timestamp":"2026-05-01T10:00:05.000Z","message":{"id":"m3","model":"m","role":"assistant","content":[{"type":"text","text":"done"}]}}`)
}

// hooksOf converts a transcript to hook payloads, with Claude Code's
// harness-added replace_all on Edit inputs, as the hooks get them.
func hooksOf(t *testing.T, text string) []string {
	events, _, err := transcript.Convert(strings.NewReader(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := transcript.WriteJSONL(&buf, events); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		out = append(out, strings.Replace(line, `"tool_input":{"file_path":"/w/a.go",`, `"tool_input":{"replace_all":false,"file_path":"/w/a.go",`, 1))
	}
	return out
}

func TestEvidence(t *testing.T) {
	dir := t.TempDir()
	text := transcriptLines("ok")
	rec, err := reviewtest.Record(hooksOf(t, text))
	if err != nil {
		t.Fatal(err)
	}
	recFile := writeTemp(t, dir, "r.json", rec)
	tr := writeTemp(t, dir, "t.jsonl", []byte(text))
	// The record has no PostToolBatch steps: it cannot prove what the
	// model read, and is refused for that unless --allow-unheld.
	code, out := runVerify(t, recFile, "--evidence", tr)
	if code != 1 || !strings.HasPrefix(out, "REFUSED EVIDENCE_UNHELD: 2 call(s) whose result the model read") {
		t.Fatalf("no --allow-unheld: %d %s", code, out)
	}
	code, out = runVerify(t, recFile, "--evidence", tr, "--allow-unheld")
	if code != 0 || !strings.Contains(out, "EVIDENCE MATCHES: calls: 2 matched, 0 differs, 0 absent; prompts: 1 matched") ||
		!strings.Contains(out, "normalized: harness-added fields: replace_all") {
		t.Fatalf("%d %s", code, out)
	}
	if strings.Contains(out, "go test") || strings.Contains(out, "fix it") {
		t.Fatalf("bodies printed without --show-bodies:\n%s", out)
	}
	// One edited tool result: exactly that call differs.
	edited := writeTemp(t, dir, "e.jsonl", []byte(transcriptLines("ok (edited)")))
	code, out = runVerify(t, recFile, "--evidence", edited, "--allow-unheld")
	if code != 1 || !strings.HasPrefix(out, "REFUSED EVIDENCE_DIFFERS: 1 item(s) differ from the transcript, first call Bash tu-bash (seq 4,5)") || !strings.Contains(out, "differs  call Bash tu-bash (seq 4,5): input matched, input matched, output differs") ||
		!strings.Contains(out, "calls: 1 matched, 1 differs, 0 absent") || strings.Contains(out, "ok (edited)") {
		t.Fatalf("%d %s", code, out)
	}
	_, out = runVerify(t, recFile, "--evidence", edited, "--show-bodies", "differs")
	if !strings.Contains(out, `transcript output (seq `) || !strings.Contains(out, "ok (edited)") || strings.Contains(out, "fix it") {
		t.Fatalf("--show-bodies differs:\n%s", out)
	}
	// A transcript that misses the call: absent, a failure unless
	// --allow-absent.
	cut := writeTemp(t, dir, "c.jsonl", []byte(strings.Join(strings.SplitAfter(text, "\n")[:3], "")))
	code, out = runVerify(t, recFile, "--evidence", cut, "--allow-unheld")
	if code != 1 || !strings.HasPrefix(out, "REFUSED EVIDENCE_ABSENT: ") || !strings.Contains(out, "absent   call Bash tu-bash (seq 4,5)") || !strings.Contains(out, "EVIDENCE INCOMPLETE") {
		t.Fatalf("%d %s", code, out)
	}
	code, out = runVerify(t, recFile, "--evidence", cut, "--allow-absent", "--allow-unheld")
	if code != 0 || !strings.Contains(out, "EVIDENCE MATCHES WHERE PRESENT") {
		t.Fatalf("--allow-absent: %d %s", code, out)
	}
}

// TestEvidenceRealTranscripts: each real transcript of the shared
// corpus, replayed through record-step's parsing into a record, matches
// its own transcript in every body; one edited tool result differs in
// exactly that call.
func TestEvidenceRealTranscripts(t *testing.T) {
	files := corpora.Glob(t, "corpora/agent-sessions/*.jsonl", "evidence on real Claude Code transcripts")
	root := filepath.Dir(filepath.Dir(files[0]))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			events, _, err := transcript.ConvertFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			_ = transcript.WriteJSONL(&buf, events)
			rec, err := reviewtest.Record(strings.Split(strings.TrimSpace(buf.String()), "\n"))
			if err != nil {
				t.Fatal(err)
			}
			recFile := writeTemp(t, t.TempDir(), "r.json", rec)
			// Made from the transcript, the record has no PostToolBatch
			// steps: what the model read is unheld.
			if code, out := runVerify(t, recFile, "--evidence", f); code != 1 || !strings.HasPrefix(out, "REFUSED EVIDENCE_UNHELD: ") {
				t.Fatalf("no --allow-unheld: %d %s", code, lastLine(out))
			}
			code, out := runVerify(t, recFile, "--evidence", f, "--allow-unheld")
			if code != 0 || !strings.Contains(out, "EVIDENCE MATCHES") || strings.Contains(out, " differs, ") && !strings.Contains(out, "0 differs") {
				t.Fatalf("%d %s", code, lastLine(out))
			}
			t.Log(lastLine(out))
		})
	}
	// One edited tool result in the 387-event session.
	src := filepath.Join(root, "agent-sessions", "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	if _, err := os.Stat(src); err != nil {
		return
	}
	dir := t.TempDir()
	if err := exec.Command("cp", "-r", src, strings.TrimSuffix(src, ".jsonl"), dir).Run(); err != nil {
		t.Fatal(err)
	}
	events, _, err := transcript.ConvertFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_ = transcript.WriteJSONL(&buf, events)
	rec, _ := reviewtest.Record(strings.Split(strings.TrimSpace(buf.String()), "\n"))
	recFile := writeTemp(t, dir, "r.json", rec)
	copyT := filepath.Join(dir, filepath.Base(src))
	data, _ := os.ReadFile(copyT)
	const target = `"stdout":"📋 Ready work`
	edited := bytes.Replace(data, []byte(target), []byte(`"stdout":"📋 Ready werk`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("edit did not apply")
	}
	_ = os.Chmod(copyT, 0o644)
	writeTemp(t, dir, filepath.Base(src), edited)
	code, out := runVerify(t, recFile, "--evidence", copyT, "--allow-unheld")
	if code != 1 || strings.Count(out, "\ndiffers ") != 1 || !strings.Contains(out, "calls: 186 matched, 1 differs, 0 absent") {
		t.Fatalf("%d %s", code, lastLine(out))
	}
	t.Log(lastLine(out))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestGapsNamed: the plain output names the toolUseIds behind each gap,
// and --json lists them under gaps.toolUseIds.
func TestGapsNamed(t *testing.T) {
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	f := writeTemp(t, t.TempDir(), "r.json", rec)
	code, out := runVerify(t, f)
	for _, want := range []string{"gaps: 1 unfinished tool call(s), 1 duplicated pre-event(s), 0 duplicated post-event(s), 1 post-event(s) without a pre-event",
		"\n  unfinished: t-lost\n", "\n  duplicated pre-event: t-edit\n", "\n  post-event without a pre-event: t-orphan\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%d: output lacks %q:\n%s", code, want, out)
		}
	}
	_, out = runVerify(t, "--json", f)
	var v struct {
		Gaps struct {
			ToolUseIDs struct {
				Unfinished, DuplicatePre, DuplicatePost, PostWithoutPre []string
			} `json:"toolUseIds"`
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	ids := v.Gaps.ToolUseIDs
	if strings.Join(ids.Unfinished, ",") != "t-lost" || strings.Join(ids.DuplicatePre, ",") != "t-edit" || len(ids.DuplicatePost) != 0 || strings.Join(ids.PostWithoutPre, ",") != "t-orphan" {
		t.Errorf("json ids %+v", ids)
	}
	if verdict.Printable("a\nb") != `"a\nb"` || verdict.Printable("toolu_1") != "toolu_1" {
		t.Error("printable")
	}
}

// TestBundleFixtures: every record fixture (policy ones too), bundled with its
// attestations, attestor keys and time-stamping roots, gets from --bundle
// the verdict its parts get from logbook-verify with the same flags.
func TestBundleFixtures(t *testing.T) {
	td := "../../testdata/"
	files, _ := filepath.Glob(td + "records/policy/*.json")
	if len(files) < 20 {
		t.Fatalf("%d policy fixtures", len(files))
	}
	plain, _ := filepath.Glob(td + "records/*.json")
	files = append(files, plain...)
	dir := t.TempDir()
	n := 0
	for _, f := range files {
		name := filepath.Base(f)
		var opt struct {
			Pubkey            []string
			TsaRoots          string
			IdentityRoots     string
			TrustedIdentities string
			Attestation       []string
			AttestorKey       []string
		}
		if data, err := os.ReadFile(td + "records/policy/options/" + name); err == nil {
			if err := json.Unmarshal(data, &opt); err != nil {
				t.Fatal(err)
			}
		}
		if len(opt.Pubkey) == 0 {
			opt.Pubkey = []string{"keys/fixture.key.pub"}
		}
		var common []string
		if opt.TsaRoots != "" {
			common = append(common, "--tsa-roots", td+opt.TsaRoots)
		}
		if opt.IdentityRoots != "" {
			common = append(common, "--identity-roots", td+opt.IdentityRoots, "--trusted-identities", td+opt.TrustedIdentities)
		}
		for _, k := range opt.AttestorKey {
			common = append(common, "--attestor-key", td+k)
		}
		parts := append([]string{}, common...)
		bargs := append([]string{}, common...)
		for _, k := range opt.Pubkey {
			parts = append(parts, "--pubkey", td+k)
			bargs = append(bargs, "--trust", td+k)
		}
		rec, _ := os.ReadFile(f)
		b := &bundle.Bundle{Record: rec, SignerKey: signerPEM(t, rec)}
		for _, a := range opt.Attestation {
			parts = append(parts, "--attestation", td+a)
			data, _ := os.ReadFile(td + a)
			b.Attestations = append(b.Attestations, data)
		}
		if opt.TsaRoots != "" {
			roots, _ := os.ReadFile(td + opt.TsaRoots)
			b.TSARoots = string(roots)
		}
		out, err := bundle.Write(b)
		if err != nil {
			// A part that is not strict JSON (an attestation with a
			// duplicate key) cannot be carried: logbook-review --export
			// refuses it.
			t.Logf("%s: not bundled: %v", name, err)
			continue
		}
		bf := writeTemp(t, dir, name, out)
		_, want := runVerify(t, append(parts, f)...)
		_, got := runVerify(t, append(bargs, "--bundle", bf)...)
		if first(want) != first(got) {
			t.Errorf("%s: parts: %s\nbundle: %s", name, first(want), first(got))
		}
		n++
	}
	t.Logf("%d of %d fixtures: the same verdict bundled and as parts", n, len(files))
}

// first is the verdict word and code of a logbook-verify line.
func first(out string) string {
	f := strings.Fields(out)
	if len(f) > 0 && f[0] == "OK" {
		return "OK"
	}
	if len(f) > 1 {
		return f[0] + " " + f[1]
	}
	return out
}

// signerPEM is the record's own signature.publicKey as PEM, else the
// fixture key's (a record too broken to name its key).
func signerPEM(t *testing.T, rec []byte) string {
	var v struct{ Signature struct{ PublicKey string } }
	der, err := hex.DecodeString(v.Signature.PublicKey)
	if json.Unmarshal(rec, &v) == nil {
		der, err = hex.DecodeString(v.Signature.PublicKey)
	}
	if err != nil || len(der) != 44 {
		text, _ := os.ReadFile("../../testdata/keys/fixture.key.pub")
		return string(text)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}
