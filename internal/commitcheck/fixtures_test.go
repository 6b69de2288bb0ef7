package commitcheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite testdata/commits from the generator")

// Fixtures is testdata/commits: repositories as git fast-import streams
// (fail_CODE_NAME.fi, each a base commit, main one commit above it and
// refs/notes/logbook) and the records their notes name (records/), sealed
// with testdata/keys/fixture.key. Every date is fixed, so -update writes
// the same bytes each time.
const fixtures = "../../testdata/commits"

var gitEnv = []string{"GIT_AUTHOR_NAME=Fixture", "GIT_AUTHOR_EMAIL=fixture@example.com", "GIT_COMMITTER_NAME=Fixture",
	"GIT_COMMITTER_EMAIL=fixture@example.com", "GIT_AUTHOR_DATE=2026-03-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-03-01T10:00:00Z",
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}

func git(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), gitEnv...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// repo makes a repository: a base commit and, on main, one commit
// writing file with text, its message "change FILE" and then trailers,
// when given.
func repo(t *testing.T, file, text string, trailers ...string) (dir, commit string) {
	dir = t.TempDir()
	git(t, dir, nil, "init", "-q", "-b", "main")
	git(t, dir, nil, "commit", "-q", "--allow-empty", "-m", "base")
	os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644)
	git(t, dir, nil, "add", file)
	msg := "change " + file
	if len(trailers) > 0 {
		msg += "\n\n" + strings.Join(trailers, "\n")
	}
	git(t, dir, nil, "commit", "-q", "-m", msg)
	return dir, git(t, dir, nil, "rev-parse", "HEAD")
}

// sealSession seals a session naming commits (none: a session that made
// no commit) with the fixture key.
func sealSession(t *testing.T, id string, repoDir string, commits ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	at := "2026-03-01T10:00:00Z"
	p := `{"session_id":"` + id + `","cwd":"/home/dev/project","hook_event_name":"SessionStart","source":"startup"}`
	if _, err := recorder.Record(dir, []byte(p), at, "/home/dev/project", recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range commits {
		facts, err := gitfacts.ReadCommit(repoDir, c)
		if err != nil {
			t.Fatal(err)
		}
		if err := gitstep.Append(dir, id, []chain.Step{gitstep.CommitStep(facts)}, func() string { return at }); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("../../testdata/keys/fixture.key")
	if err != nil {
		t.Fatal(err)
	}
	priv, err := keys.ParsePrivateKeyPEM(b)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journalfile.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := seal.Seal(j, priv, seal.Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	return res.Record
}

func recordID(t *testing.T, rec []byte) string {
	r := record.Verify(rec, record.Options{})
	if !r.OK {
		t.Fatal(r.Detail)
	}
	return r.RecordID
}

func bindingLine(recordID, session string, step int) string {
	return `{"v":"` + gitbind.Version + `","recordId":"` + recordID + `","session":"` + session + `","step":` + string(rune('0'+step)) + `,"level":"local"}`
}

// proofOf is a tlog-proof whose leaf is a checkpoint of the record rec
// (its session, step count and tip), signed with the fixture key, in a
// log of that one leaf.
func proofOf(t *testing.T, rec []byte) string {
	t.Helper()
	var c gitbind.Collect
	res := record.Verify(rec, record.Options{Top: c.Top, EachStep: c.Each})
	c.Done()
	b, _ := os.ReadFile("../../testdata/keys/fixture.key")
	priv, err := keys.ParsePrivateKeyPEM(b)
	if err != nil || !res.OK {
		t.Fatal(err, res.Detail)
	}
	s, err := checkpoint.NewSigner("fixture.example", priv)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := s.Sign(checkpoint.Checkpoint{Session: c.Session, Size: res.StepCount, Tip: c.Tip, Time: "2026-03-01T10:00:00Z", Redact: strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	root := logproof.LeafHash(leaf)
	logCP, err := s.SignText("fixture.example/log\n1\n" + base64.StdEncoding.EncodeToString(root[:]) + "\n")
	if err != nil {
		t.Fatal(err)
	}
	return string((&logproof.Proof{Extra: leaf, Index: 0, Checkpoint: logCP}).Format())
}

// withProof is a binding line carrying proof.
func withProof(line, proof string) string {
	b, _ := json.Marshal(proof)
	return strings.TrimSuffix(line, "}") + `,"logProof":` + string(b) + "}"
}

// generate writes testdata/commits.
func generate(t *testing.T) {
	// The session that made commit "a"; another that made none; one
	// sealed and not kept in records/.
	dirA, a := repo(t, "a.txt", "a\n")
	made := sealSession(t, "fixture-commit", dirA, a)
	other := sealSession(t, "fixture-other", dirA)
	lost := sealSession(t, "fixture-lost", dirA, a)
	idMade, idOther, idLost := recordID(t, made), recordID(t, other), recordID(t, lost)
	proofMade, proofOther := proofOf(t, made), proofOf(t, other)
	cases := []struct {
		name, file, text, note string
		trailers               []string
	}{
		{"fail_BINDING_MALFORMED_trailer_text.fi", "a.txt", "a\n", "Logbook-Record: " + idMade, nil},
		{"fail_BINDING_MALFORMED_extra_member.fi", "a.txt", "a\n", strings.Replace(bindingLine(idMade, "fixture-commit", 1), "}", `,"url":"https://example.com/s"}`, 1), nil},
		{"fail_RECORD_MISSING_not_kept.fi", "a.txt", "a\n", bindingLine(idLost, "fixture-lost", 1), nil},
		{"fail_RECORD_MISSING_unknown_id.fi", "a.txt", "a\n", bindingLine(strings.Repeat("0", 64), "fixture-commit", 1), nil},
		{"fail_BINDING_FORGED_other_session.fi", "a.txt", "a\n", bindingLine(idOther, "fixture-commit", 1), nil},
		{"fail_BINDING_FORGED_no_commit_step.fi", "a.txt", "a\n", bindingLine(idMade, "fixture-commit", 0), nil},
		{"fail_COMMIT_NOT_IN_RECORD_other_change.fi", "b.txt", "b\n", bindingLine(idMade, "fixture-commit", 1), nil},
		{"fail_COMMIT_NOT_IN_RECORD_amended.fi", "a.txt", "a, amended\n", bindingLine(idMade, "fixture-commit", 1), nil},
		{"good_recorded.fi", "a.txt", "a\n", bindingLine(idMade, "fixture-commit", 1), nil},
		{"good_recorded_log_proof.fi", "a.txt", "a\n", withProof(bindingLine(idMade, "fixture-commit", 1), proofMade), nil},
		{"fail_LOG_PROOF_INVALID_note_proof_of_other_record.fi", "a.txt", "a\n", withProof(bindingLine(idMade, "fixture-commit", 1), proofOther), nil},
		{"fail_LOG_PROOF_INVALID_note_proof_malformed.fi", "a.txt", "a\n", withProof(bindingLine(idMade, "fixture-commit", 1), "not a proof"), nil},
		{"fail_LEVEL_TOO_LOW_server.fi", "a.txt", "a\n", bindingLine(idMade, "fixture-commit", 1), nil},
		{"fail_LEVEL_TOO_LOW_logged.fi", "a.txt", "a\n", bindingLine(idMade, "fixture-commit", 1), nil},
		// Logbook-Record trailers: a claim a binding must bear out.
		{"fail_BINDING_FORGED_trailer_other_session.fi", "a.txt", "a\n", bindingLine(idMade, "fixture-commit", 1), []string{"Logbook-Record: fixture-nowhere"}},
		{"fail_BINDING_MALFORMED_trailer_url.fi", "a.txt", "a\n", bindingLine(idMade, "fixture-commit", 1), []string{"Logbook-Record: https://logs.example.com/s/1"}},
		{"fail_RECORD_MISSING_trailer_unknown_session.fi", "b.txt", "b\n", "", []string{"Logbook-Record: fixture-nowhere"}},
		{"fail_COMMIT_NOT_IN_RECORD_trailer_copied.fi", "b.txt", "b\n", "", []string{"Logbook-Record: fixture-other"}},
	}
	// A fixture's FILE.args: the flags it is checked with, one a line.
	args := map[string]string{"fail_LEVEL_TOO_LOW_server.fi": "--require-level\nserver\n", "fail_LEVEL_TOO_LOW_logged.fi": "--require-level\nlogged\n"}
	os.RemoveAll(fixtures)
	os.MkdirAll(filepath.Join(fixtures, "records"), 0o755)
	os.WriteFile(filepath.Join(fixtures, "records", "made.json"), made, 0o644)
	os.WriteFile(filepath.Join(fixtures, "records", "other.json"), other, 0o644)
	for _, c := range cases {
		dir, commit := repo(t, c.file, c.text, c.trailers...)
		if c.note != "" {
			git(t, dir, []byte(c.note+"\n"), "notes", "--ref", gitbind.NoteRef, "add", "-F", "-", commit)
		}
		stream := git(t, dir, nil, "fast-export", "--all")
		if err := os.WriteFile(filepath.Join(fixtures, c.name), []byte(stream+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if a, ok := args[c.name]; ok {
			os.WriteFile(filepath.Join(fixtures, c.name+".args"), []byte(a), 0o644)
		}
	}
}

// Materialize makes the repository of fixture stream file and returns
// its directory.
func Materialize(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git(t, dir, nil, "init", "-q", "-b", "main")
	git(t, dir, b, "fast-import", "--quiet")
	return dir
}

// TestFixtures: each fail_CODE_*.fi is refused with CODE, each good_*.fi
// recorded, with the fixture key pinned; every commit code has two.
func TestFixtures(t *testing.T) {
	if *update {
		generate(t)
	}
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.fi"))
	sort.Strings(files)
	count := map[format.Code]int{}
	pub, err := keys.ReadPublicFiles("--pubkey", []string{"../../testdata/keys/fixture.key.pub"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		dir := Materialize(t, f)
		level := ""
		if a, err := os.ReadFile(f + ".args"); err == nil {
			level = strings.Fields(string(a))[1] // --require-level LEVEL, the only one
		}
		var lines []Line
		_, err := Check(Options{Repo: dir, Range: "main~1..main", Records: filepath.Join(fixtures, "records"), RequireLevel: level,
			Load: func(string) (verdict.Inputs, error) { return verdict.Inputs{Pinned: pub}, nil }}, func(l Line) { lines = append(lines, l) })
		if err != nil || len(lines) != 1 {
			t.Fatalf("%s: %v %+v", f, err, lines)
		}
		l, base := lines[0], filepath.Base(f)
		if strings.HasPrefix(base, "good_") {
			if l.Status != Recorded || l.By != "commit" {
				t.Errorf("%s: %+v", base, l)
			}
			continue
		}
		want := format.Code(strings.SplitN(strings.TrimPrefix(base, "fail_"), "_", 3)[0])
		for _, c := range append(format.CommitCodes, format.LogProofInvalid) {
			if strings.HasPrefix(strings.TrimPrefix(base, "fail_"), string(c)+"_") {
				want = c
			}
		}
		if l.Code == nil || format.Code(*l.Code) != want {
			t.Errorf("%s: %+v, want %s", base, l, want)
			continue
		}
		count[want]++
	}
	for _, c := range format.CommitCodes {
		if count[c] < 2 {
			t.Errorf("%s: %d fixtures, want two or more", c, count[c])
		}
	}
}

// Bad input for a range: one commit over --max-commits is a named error
// (RANGE_TOO_LARGE), so is a range that is an option, and a range git
// does not know.
func TestRangeErrors(t *testing.T) {
	dir := Materialize(t, filepath.Join(fixtures, "good_recorded.fi"))
	load := func(string) (verdict.Inputs, error) { return verdict.Inputs{}, nil }
	if _, err := Check(Options{Repo: dir, Range: "main", MaxCommits: 1, Load: load}, func(Line) {}); !errors.Is(err, ErrTooManyCommits) {
		t.Errorf("two commits, --max-commits 1: %v", err)
	}
	n := 0
	if ok, err := Check(Options{Repo: dir, Range: "main", MaxCommits: 2, Load: load}, func(Line) { n++ }); err != nil || ok || n != 2 { // no --records: RECORD_MISSING
		t.Errorf("two commits, --max-commits 2: %v %v %d", ok, err, n)
	}
	for _, r := range []string{"--all", "", "nosuch..main"} {
		if _, err := Check(Options{Repo: dir, Range: r, Load: load}, func(Line) {}); err == nil {
			t.Errorf("range %q: no error", r)
		}
	}
}
