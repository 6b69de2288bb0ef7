package e2e

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// cpVerdict is logbook-verify --json with the level.
type cpVerdict struct {
	verdict
	Level       *string           `json:"level"`
	Checkpoints []json.RawMessage `json:"checkpoints"`
}

func (v cpVerdict) level() string {
	if v.Level == nil {
		return ""
	}
	return *v.Level
}

// cpCase is a record checked against checkpoints.
type cpCase struct {
	group, record string
	pubkeys       []string // --pubkey files
	notes, keys   []string // --checkpoint, --checkpoint-key files
	want, level   string   // "-" when not known in advance
	managed       bool     // --require-managed
	attested      bool     // --require-attested
}

func (c cpCase) args() []string {
	args := []string{"--json"}
	for _, p := range c.pubkeys {
		args = append(args, "--pubkey", p)
	}
	for _, n := range c.notes {
		args = append(args, "--checkpoint", n)
	}
	for _, k := range c.keys {
		args = append(args, "--checkpoint-key", k)
	}
	if c.attested {
		args = append(args, "--require-attested")
	}
	if c.managed {
		args = append(args, "--require-managed")
	}
	return append(args, c.record)
}

func cliCheckpoint(t *testing.T, c cpCase) cpVerdict {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, "logbook-verify"), c.args()...).Output()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var v cpVerdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v: output %q: %v", c.args(), out, err)
	}
	if (status == 0) != v.OK || status > 1 {
		t.Fatalf("%v: exit status %d with verdict %v", c.args(), status, v.verdict)
	}
	return v
}

// checkpointFixtures lists testdata/records/checkpoint with their options.
func checkpointFixtures(t *testing.T) []cpCase {
	files, _ := filepath.Glob("../testdata/records/checkpoint/*.json")
	if len(files) < 10 {
		t.Fatalf("%d checkpoint fixtures", len(files))
	}
	var out []cpCase
	for _, f := range files {
		name := filepath.Base(f)
		var o struct {
			Checkpoint, CheckpointKey []string
			RequireManaged            bool
			RequireAttested           bool
		}
		b, err := os.ReadFile(filepath.Join("../testdata/records/checkpoint/options", name))
		if err != nil || json.Unmarshal(b, &o) != nil {
			t.Fatalf("%s: options: %v", name, err)
		}
		c := cpCase{group: "fixtures", record: f, pubkeys: []string{"../testdata/keys/fixture.key.pub"}, managed: o.RequireManaged, attested: o.RequireAttested}
		for _, p := range o.Checkpoint {
			c.notes = append(c.notes, filepath.Join("../testdata", p))
		}
		for _, p := range o.CheckpointKey {
			c.keys = append(c.keys, filepath.Join("../testdata", p))
		}
		rest := strings.TrimSuffix(name, ".json")
		if strings.HasPrefix(rest, "good_") {
			c.level = strings.Split(strings.TrimPrefix(rest, "good_"), "_")[0]
		} else {
			for _, code := range []string{checkpoint.Invalid, checkpoint.Mismatch, checkpoint.Truncated, "HOOKS_NOT_MANAGED", "ACTOR_UNATTESTED", "ACTOR_MISMATCH"} {
				if strings.HasPrefix(rest, "fail_"+code+"_") {
					c.want = code
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// TestCheckpointFixturesCLI: logbook-verify gives every checkpoint fixture
// the code (or the level) its name says, with its options as flags.
func TestCheckpointFixturesCLI(t *testing.T) {
	t.Parallel()
	for _, c := range checkpointFixtures(t) {
		v := cliCheckpoint(t, c)
		if v.code() != c.want || v.level() != c.level {
			t.Errorf("%s: got %q level %q (%s), want %q level %q", c.record, v.code(), v.level(), v.Detail, c.want, c.level)
		}
	}
}

// randomServerCases records random sessions through an in-process server
// and makes the agent's forgeries of them: cut and re-sealed journals,
// re-chained records, damaged notes, other sessions' notes, other keys.
func randomServerCases(t *testing.T, r *rand.Rand, n int) []cpCase {
	dir := t.TempDir()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(r.IntN(256))
	}
	key := ed25519.NewKeyFromSeed(seed)
	agent := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0xa9}, 32))
	srv, err := server.New(server.Config{Dir: filepath.Join(dir, "data"), Origin: "diff.example", Key: key, OpenReads: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer func() { ts.Close(); srv.Close() }()
	privPEM, pubPEM, _ := keys.MarshalPair(key, key.Public().(ed25519.PublicKey))
	_ = privPEM
	pubFile, vkeyFile, wrongFile := filepath.Join(dir, "server.pub"), filepath.Join(dir, "server.vkey"), filepath.Join(dir, "wrong.pub")
	writeFile(t, pubFile, pubPEM)
	vkey, _ := checkpoint.VerifierKey("diff.example", key.Public().(ed25519.PublicKey))
	writeFile(t, vkeyFile, []byte(vkey+"\n"))
	_, wrongPEM, _ := keys.MarshalPair(agent, agent.Public().(ed25519.PublicKey))
	writeFile(t, wrongFile, wrongPEM)
	post := func(body string) {
		resp, err := http.Post(ts.URL+"/v1/hooks/claude-code", "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("post: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	get := func(path string) []byte {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, b)
		return p
	}
	var out []cpCase
	var prevNote string
	for s := 0; s < n; s++ {
		id := fmt.Sprintf("rand-%03d", s)
		steps := 1 + r.IntN(30)
		for i := 0; i < steps; i++ {
			ev := []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Notification"}[r.IntN(4)]
			post(fmt.Sprintf(`{"session_id":%q,"hook_event_name":%q,"tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"echo %d"},"prompt":"p%d","message":"m"}`, id, ev, i/2, r.Int(), i))
		}
		post(fmt.Sprintf(`{"session_id":%q,"hook_event_name":"SessionEnd","reason":"exit"}`, id))
		rec := file(id+".json", get("/v1/sessions/"+id+"/record"))
		note := file(id+".checkpoint", get("/v1/sessions/"+id+"/checkpoint"))
		log, _ := os.ReadFile(checkpoint.LogPath(filepath.Join(dir, "data"), id))
		entries := strings.SplitAfter(string(log), "\n\n")
		var notes []string // every note of the log: text, blank line, signatures
		for i := 0; i+1 < len(entries); i += 2 {
			notes = append(notes, entries[i]+strings.TrimSuffix(entries[i+1], "\n"))
		}
		early := file(id+".early.checkpoint", []byte(notes[r.IntN(len(notes))]))
		k := func() string { return []string{pubFile, vkeyFile}[r.IntN(2)] }
		out = append(out,
			cpCase{"honest", rec, nil, []string{note}, []string{k()}, "", "server", false, false},
			cpCase{"honest, earlier checkpoint", rec, nil, []string{early}, []string{k()}, "-", "-", false, false},
			cpCase{"honest, both", rec, nil, []string{early, note}, []string{k(), wrongFile}, "", "server", false, false},
			cpCase{"honest, other key", rec, nil, []string{note}, []string{wrongFile}, checkpoint.Invalid, "", false, false},
		)
		// The agent cuts its copy of the journal and seals it.
		lines, _ := os.ReadFile(journalfile.Path(filepath.Join(dir, "data"), id))
		ls := strings.SplitAfter(string(lines), "\n")
		keep := 1 + r.IntN(len(ls)-2) // the header and at least one step
		cutDir := filepath.Join(dir, "cut-"+id)
		os.MkdirAll(cutDir, 0o700)
		writeFile(t, journalfile.Path(cutDir, id), []byte(strings.Join(ls[:keep+1], "")))
		if j, err := journalfile.Open(cutDir, id); err == nil {
			res, err := seal.Seal(j, agent, seal.Options{Now: "2026-12-01T00:00:00Z"})
			j.Close()
			if err == nil {
				out = append(out, cpCase{"cut and re-sealed", file(id+".cut.json", res.Record), nil, []string{note}, []string{k()}, "-", "-", false, false})
			}
		}
		// It re-chains after editing a step.
		recBytes, _ := os.ReadFile(rec)
		if re, err := tamper.Apply(recBytes, tamper.EditSummary(r.IntN(steps), "edited"), tamper.Relink, tamper.FixCountAndTip, tamper.Resign(agent)); err == nil {
			out = append(out, cpCase{"re-chained", file(id+".rechained.json", re), nil, []string{note}, []string{k()}, checkpoint.Mismatch, "", false, false})
		}
		// A damaged note: one byte changed.
		nb, _ := os.ReadFile(note)
		nb[r.IntN(len(nb))] ^= byte(1 + r.IntN(255))
		out = append(out, cpCase{"damaged note", rec, nil, []string{file(id+".damaged.checkpoint", nb)}, []string{k()}, "-", "-", false, false})
		if prevNote != "" {
			out = append(out, cpCase{"other session's note", rec, nil, []string{prevNote}, []string{k()}, checkpoint.Mismatch, "", false, false})
		}
		prevNote = note
	}
	return out
}

// TestBrowserCheckpointDifferential holds the page's checkpoint checks
// (web/js/checkpoint.js) to logbook-verify's: the checkpoint fixtures and
// random sessions recorded through a server, with the agent's forgeries,
// must get the same ok, code, recordId, keyId, stepCount and level.
func TestBrowserCheckpointDifferential(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("LOGBOOK_DIFF_SEED=%d", seed)
	if s := os.Getenv("LOGBOOK_DIFF_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	r := rand.New(rand.NewPCG(seed, 11))
	cases := append(checkpointFixtures(t), randomServerCases(t, r, 30)...)
	b := newBrowser(t)
	read := func(p string) string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	groups, codes := map[string]int{}, map[string]int{}
	disagree := 0
	for _, c := range cases {
		cli := cliCheckpoint(t, c)
		var pubs, notes, ks []string
		for _, p := range c.pubkeys {
			pubs = append(pubs, read(p))
		}
		for _, p := range c.notes {
			notes = append(notes, read(p))
		}
		for _, p := range c.keys {
			ks = append(ks, read(p))
		}
		opts, _ := json.Marshal(map[string]any{"pubkeys": pubs, "checkpoints": notes, "checkpointKeys": ks, "requireManaged": c.managed, "requireAttested": c.attested})
		page, err := evalJS[cpVerdict](b, `logbookVerify(`+bytesExpr([]byte(read(c.record)))+`, `+string(opts)+`)`)
		if err != nil {
			t.Fatalf("%s: %v", c.record, err)
		}
		groups[c.group]++
		codes[page.code()+" "+page.level()]++
		if !same(page.verdict, cli.verdict) || page.level() != cli.level() || len(page.Checkpoints) != len(cli.Checkpoints) {
			disagree++
			t.Errorf("%s (%s): the page and logbook-verify disagree\n page: %v level %q\n  cli: %v level %q", c.record, c.group, page.verdict, page.level(), cli.verdict, cli.level())
		}
		if c.want != "-" && (cli.code() != c.want || cli.level() != c.level) {
			t.Errorf("%s (%s): %q level %q (%s), want %q level %q", c.record, c.group, cli.code(), cli.level(), cli.Detail, c.want, c.level)
		}
	}
	b.checkQuiet(t)
	summary := fmt.Sprintf("browser checkpoint differential: %d cases (%s), %d disagreements; verdicts %s", len(cases), counts(groups), disagree, counts(codes))
	t.Log(summary)
	report(t, summary)
}

// TestBrowserCheckpointUI: the page's checkpoint fields. A record with its
// server's checkpoint and key shows level server; a cut record against
// the same checkpoint is refused TRUNCATED on screen.
func TestBrowserCheckpointUI(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	read := func(p string) string {
		data, err := os.ReadFile(filepath.Join("../testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	set := func(id, value string) {
		if _, err := evalJS[bool](b, `(() => { const e = document.getElementById(`+jsString(id)+`); e.value = `+jsString(value)+`; return true; })()`); err != nil {
			t.Fatal(err)
		}
	}
	set("checkpoint", read("records/checkpoint/notes/full.checkpoint"))
	set("checkpointkeys", read("keys/server.vkey"))
	for _, c := range []struct{ file, code, text string }{
		{"good_server_full.json", "", "server: every step was checkpointed"},
		{"fail_TRUNCATED_cut_tail.json", "TRUNCATED", "fewer steps than a checkpoint"},
		{"fail_CHECKPOINT_MISMATCH_rechained.json", "CHECKPOINT_MISMATCH", "steps were rewritten"},
	} {
		if _, err := evalJS[bool](b, `(() => { document.body.dataset.state = 'checking'; logbook.show(`+jsString(c.file)+`, `+bytesExpr([]byte(read("records/checkpoint/"+c.file)))+`); return true; })()`); err != nil {
			t.Fatal(err)
		}
		s := b.waitShown(t)
		if s.Code != c.code || !strings.Contains(s.Verdict, c.text) {
			t.Errorf("%s: code %q, shown:\n%s", c.file, s.Code, s.Verdict)
		}
	}
	// The server key given as SPKI PEM works the same.
	set("checkpointkeys", read("keys/server.key.pub"))
	evalJS[bool](b, `(() => { document.body.dataset.state = 'checking'; logbook.show("r.json", `+bytesExpr([]byte(read("records/checkpoint/good_server_full.json")))+`); return true; })()`)
	if s := b.waitShown(t); s.Code != "" || !strings.Contains(s.Verdict, "level") || !strings.Contains(s.Verdict, "server:") {
		t.Errorf("PEM key: %+v", s)
	}
	// A fleet's record: the session shows who sent its events, attested
	// and asserted (docs/fleet.md).
	set("checkpoint", read("records/checkpoint/notes/attested.checkpoint"))
	evalJS[bool](b, `(() => { document.body.dataset.state = 'checking'; logbook.show("a.json", `+bytesExpr([]byte(read("records/checkpoint/good_server_attested.json")))+`); return true; })()`)
	b.waitShown(t)
	session, err := evalJS[string](b, `document.getElementById('session').textContent`)
	if err != nil || !strings.Contains(session, "dev1 in acme (credential)") || !strings.Contains(session, "alice") {
		t.Errorf("the session box does not show the actors: %q %v", session, err)
	}
	b.checkQuiet(t)
}
