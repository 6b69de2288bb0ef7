package commitcheck

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/verdict"
)

// benchRepo makes a repository of commits commits above a base, bound
// to records records (commits/records consecutive commits each), with
// their notes, all through fast-import; it returns the repository and
// the records' folder.
func benchRepo(b *testing.B, commits, records int) (repo, dir string, pub ed25519.PublicKey) {
	repo, dir = b.TempDir(), b.TempDir()
	run := func(stdin []byte, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), gitEnv...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	run(nil, "init", "-q", "-b", "main")
	var s bytes.Buffer
	fmt.Fprintf(&s, "commit refs/heads/main\nmark :1\ncommitter F <f@example.com> 1772359200 +0000\ndata 4\nbase\n\n")
	for i := 0; i < commits; i++ {
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter F <f@example.com> 1772359200 +0000\ndata 2\nc\nfrom :%d\nM 100644 inline f%d\ndata %d\n%d\n\n", i+2, i+1, i, len(fmt.Sprint(i))+1, i)
	}
	run(s.Bytes(), "fast-import", "--quiet")
	run(nil, "tag", "base", "main~"+fmt.Sprint(commits))
	var facts []gitfacts.Commit
	for _, line := range strings.Split(strings.TrimSpace(run(nil, "log", "--reverse", "--format=%H %T %P", "base..main")), "\n") {
		f := strings.Fields(line)
		facts = append(facts, gitfacts.Commit{ID: f[0], Tree: f[1], Parents: f[2:]})
	}
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	var notes bytes.Buffer
	fmt.Fprintf(&notes, "commit %s\ncommitter F <f@example.com> 1772359200 +0000\ndata 5\nnotes\n", gitbind.NoteRef)
	per := commits / records
	at := "2026-03-01T10:00:00Z"
	for r := 0; r < records; r++ {
		id := fmt.Sprintf("bench-%d", r)
		sessions := b.TempDir()
		p := `{"session_id":"` + id + `","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`
		if _, err := recorder.Record(sessions, []byte(p), at, "/w", recorder.Options{}); err != nil {
			b.Fatal(err)
		}
		var steps []chain.Step
		for _, c := range facts[r*per : (r+1)*per] {
			steps = append(steps, gitstep.CommitStep(c))
		}
		if err := gitstep.Append(sessions, id, steps, func() string { return at }); err != nil {
			b.Fatal(err)
		}
		j, err := journalfile.Open(sessions, id)
		if err != nil {
			b.Fatal(err)
		}
		res, err := seal.Seal(j, priv, seal.Options{Now: at})
		j.Close()
		if err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, id+".json"), res.Record, 0o644)
		r0, _, _ := gitbind.Steps(res.Record, record.Options{})
		for k, c := range facts[r*per : (r+1)*per] {
			line := fmt.Sprintf(`{"v":"%s","recordId":"%s","session":"%s","step":%d,"level":"local"}`+"\n", gitbind.Version, r0.RecordID, id, k+1)
			fmt.Fprintf(&notes, "N inline %s\ndata %d\n%s\n", c.ID, len(line), line)
		}
	}
	run(notes.Bytes(), "fast-import", "--quiet")
	return repo, dir, priv.Public().(ed25519.PublicKey)
}

// BenchmarkRange: logbook-verify --commits over 1,000 commits bound to
// 100 records, beside what it cannot do without: git log of the range
// with its notes and the verdict of each of the 100 records.
func BenchmarkRange(b *testing.B) {
	repo, dir, pub := benchRepo(b, 1000, 100)
	load := func(string) (verdict.Inputs, error) { return verdict.Inputs{Pinned: []ed25519.PublicKey{pub}}, nil }
	check := func(b *testing.B) {
		n := 0
		ok, err := Check(Options{Repo: repo, Range: "base..main", Records: dir, Load: load}, func(l Line) {
			if l.Status == Recorded {
				n++
			}
		})
		if err != nil || !ok || n != 1000 {
			b.Fatalf("%v %v %d", ok, err, n)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	baseline := func(b *testing.B) {
		cmd := exec.Command("git", "-C", repo, "log", "--format=%H%n%N", "--notes="+gitbind.NoteRef, "base..main")
		out, _ := cmd.StdoutPipe()
		cmd.Start()
		io.Copy(io.Discard, out)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		for _, f := range files {
			data, err := readlimit.Large(f, readlimit.Record)
			if err != nil {
				b.Fatal(err)
			}
			in, _ := load(f)
			in.Record = data
			if o := verdict.Run(in); !o.Result.OK {
				b.Fatal(o.Result.Detail)
			}
		}
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			check(b)
		}
	})
	b.Run("baseline", func(b *testing.B) {
		for b.Loop() {
			baseline(b)
		}
	})
	// Both, one after the other in each iteration: on a shared machine
	// whose load drifts over seconds, the ratio of the two is steadier
	// than two runs' times.
	b.Run("ratio", func(b *testing.B) {
		var tc, tb time.Duration
		for b.Loop() {
			t0 := time.Now()
			check(b)
			t1 := time.Now()
			baseline(b)
			tc, tb = tc+t1.Sub(t0), tb+time.Since(t1)
		}
		b.ReportMetric(float64(tc.Microseconds())/1000/float64(b.N), "check-ms/op")
		b.ReportMetric(float64(tb.Microseconds())/1000/float64(b.N), "baseline-ms/op")
		b.ReportMetric(float64(tc)/float64(tb), "ratio")
	})
}
