package follow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func appendSteps(t testing.TB, dir, id string, from, n int) {
	t.Helper()
	j, err := journalfile.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := from; i < from+n; i++ {
		st := chain.Step{At: fmt.Sprintf("2026-05-01T10:00:%02dZ", i%60), Kind: "exec", Summary: fmt.Sprintf("Bash: make step-%d", i),
			Data: strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str("PreToolUse")})}
		if _, err := j.Append(journalfile.Header{Session: id, Harness: "claude-code"}, []chain.Step{st}); err != nil {
			t.Fatal(err)
		}
	}
}

// start runs the follower in the background and waits until it is ready.
func start(t *testing.T, opt Options) (*syncBuf, <-chan error, context.CancelFunc) {
	t.Helper()
	out := &syncBuf{}
	opt.Out = out
	ready := make(chan struct{})
	opt.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opt) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run stopped before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("not ready")
	}
	t.Cleanup(cancel)
	return out, done, cancel
}

// waitFor waits until the output holds want, failing after a while.
func waitFor(t *testing.T, out *syncBuf, done <-chan error, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case err := <-done:
			t.Fatalf("stopped (%v) before printing %q; output:\n%s", err, want, out)
		case <-deadline:
			t.Fatalf("no %q in:\n%s", want, out)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func alarm(t *testing.T, done <-chan error) *Alarm {
	t.Helper()
	select {
	case err := <-done:
		var a *Alarm
		if !errors.As(err, &a) {
			t.Fatalf("stopped with %v, want an alarm", err)
		}
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no alarm")
	}
	return nil
}

// TestAppendsPrinted: steps already there and steps that land later are
// printed; a clean stop returns nil.
func TestAppendsPrinted(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, "s1", 0, 3)
	out, done, cancel := start(t, Options{Dir: dir})
	// Steps already there are summed up, with the last one shown.
	waitFor(t, out, done, "3 step(s) already there, chain intact")
	waitFor(t, out, done, "s1 10:00:02.000 #2 exec      Bash: make step-2")
	if strings.Contains(out.String(), "#0 exec") {
		t.Fatalf("steps already there were printed one by one:\n%s", out)
	}
	appendSteps(t, dir, "s1", 3, 2)
	waitFor(t, out, done, "#3 exec      Bash: make step-3")
	waitFor(t, out, done, "#4 exec      Bash: make step-4")
	appendSteps(t, dir, "s2", 0, 1) // a session that starts later
	waitFor(t, out, done, "s2 10:00:00.000 #0")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("clean stop: %v", err)
	}
}

// TestTamperCaught: each way of changing what was seen raises its alarm.
func TestTamperCaught(t *testing.T) {
	cases := []struct {
		name string
		do   func(path string, lines [][]byte) error
		code format.Code
	}{
		{"edit mid-file in place", func(p string, _ [][]byte) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			data, _ := os.ReadFile(p)
			i := bytes.Index(data, []byte("step-1"))
			_, err = f.WriteAt([]byte("STEP-1"), int64(i))
			return err
		}, StepAltered},
		{"replace by rename", func(p string, _ [][]byte) error {
			data, _ := os.ReadFile(p)
			tmp := p + ".tmp"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				return err
			}
			return os.Rename(tmp, p)
		}, FileReplaced},
		{"delete", func(p string, _ [][]byte) error { return os.Remove(p) }, FileRemoved},
		{"reorder two steps", func(p string, l [][]byte) error {
			l[2], l[3] = l[3], l[2]
			return rewrite(p, l)
		}, StepReordered},
		{"remove a step", func(p string, l [][]byte) error {
			return rewrite(p, append(l[:2:2], l[3:]...))
		}, StepRemoved},
		{"cut the last steps", func(p string, l [][]byte) error { return rewrite(p, l[:3]) }, StepRemoved},
		{"edit the header", func(p string, l [][]byte) error {
			l[0] = bytes.Replace(l[0], []byte("claude-code"), []byte("other-agent"), 1)
			return rewrite(p, l)
		}, HeaderAltered},
		{"append a step that does not link", func(p string, l [][]byte) error {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write(append(bytes.Replace(l[len(l)-1], []byte(`"seq":4`), []byte(`"seq":5`), 1), '\n'))
			return err
		}, format.ChainBroken},
		{"replace by a symlink", func(p string, _ [][]byte) error {
			tmp := p + ".link"
			if err := os.Symlink("/dev/null", tmp); err != nil {
				return err
			}
			return os.Rename(tmp, p)
		}, FileReplaced},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			appendSteps(t, dir, "s1", 0, 5)
			out, done, _ := start(t, Options{Dir: dir, Session: "s1"})
			waitFor(t, out, done, "#4 exec")
			path := journalfile.Path(dir, "s1")
			data, _ := os.ReadFile(path)
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			if err := c.do(path, lines); err != nil {
				t.Fatal(err)
			}
			if a := alarm(t, done); a.Code != c.code || a.Session != "s1" {
				t.Fatalf("alarm %+v, want %s", a, c.code)
			}
		})
	}
}

// rewrite changes the file in place with one write and then a truncate,
// so the follower sees either the old content, the new content, or the new
// content followed by old bytes: never an empty file in between.
func rewrite(path string, lines [][]byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(data)))
}

// TestTornTailIsNotAnAlarm: bytes after the last newline are an append in
// flight or a torn tail; the follower says so and keeps going, and the
// repair that cuts them (with its note) is not tampering either.
func TestTornTailIsNotAnAlarm(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, "s1", 0, 2)
	out, done, _ := start(t, Options{Dir: dir})
	waitFor(t, out, done, "#1 exec")
	f, _ := os.OpenFile(journalfile.Path(dir, "s1"), os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte(`{"at":"2026-05-01T10:00:02Z","da`))
	f.Close()
	waitFor(t, out, done, "not a complete line yet")
	appendSteps(t, dir, "s1", 2, 1) // cuts the torn tail, adds the note and the step
	waitFor(t, out, done, "#2 note      torn tail")
	waitFor(t, out, done, "#3 exec")
}

// TestRescanAfterOverflow: a rescan (what an overflowed event queue
// triggers) finds changes that raised no event.
func TestRescanAfterOverflow(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, "s1", 0, 2)
	f := &follower{opt: Options{Dir: dir, Out: &syncBuf{}}, files: map[string]*tracked{}}
	if err := f.scanAll(); err != nil || f.files["s1"].steps != 2 {
		t.Fatalf("first scan: %v", err)
	}
	appendSteps(t, dir, "s2", 0, 1)
	if err := f.scanAll(); err != nil || f.files["s2"] == nil {
		t.Fatalf("rescan did not pick up the new session: %v", err)
	}
	data, _ := os.ReadFile(journalfile.Path(dir, "s1"))
	os.WriteFile(journalfile.Path(dir, "s1"), bytes.Replace(data, []byte("step-0"), []byte("step-X"), 1), 0o600)
	err := f.scanAll()
	var a *Alarm
	if !errors.As(err, &a) || a.Code != StepAltered {
		t.Fatalf("rescan: %v", err)
	}
}

// TestAlreadyTampered: a file broken before the watch starts is caught at
// once.
func TestAlreadyTampered(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, "s1", 0, 3)
	data, _ := os.ReadFile(journalfile.Path(dir, "s1"))
	os.WriteFile(journalfile.Path(dir, "s1"), bytes.Replace(data, []byte("step-1"), []byte("step-X"), 1), 0o600)
	err := Run(context.Background(), Options{Dir: dir, Out: &syncBuf{}})
	var a *Alarm
	if !errors.As(err, &a) || a.Code != format.ChainBroken {
		t.Fatalf("got %v, want CHAIN_BROKEN", err)
	}
}

// FuzzUpdate: whatever bytes the file holds, and however they change, the
// checker returns steps, a torn length or an alarm: never a panic, and
// never an alarm-free pass over changed bytes already seen.
func FuzzUpdate(f *testing.F) {
	dir := f.TempDir()
	appendSteps(f, dir, "s1", 0, 3)
	good, _ := os.ReadFile(journalfile.Path(dir, "s1"))
	f.Add(good, good[:len(good)/2])
	f.Add(good[:10], good)
	f.Add([]byte("{}\n[1]\n"), []byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		s := &state{session: "s1"}
		s.update(first)
		seen := append([]byte(nil), s.prefix...)
		_, _, alarm := s.update(second)
		if alarm == nil && !bytes.HasPrefix(second, seen) {
			t.Fatalf("bytes seen earlier changed without an alarm")
		}
	})
}

// TestOutputIsSanitized: a file named with a newline is not a session,
// and a step's time, kind and summary reach the terminal without control
// characters, so no line or escape sequence can be forged.
func TestOutputIsSanitized(t *testing.T) {
	dir := t.TempDir()
	appendSteps(t, dir, "s1", 0, 1)
	data, _ := os.ReadFile(journalfile.Path(dir, "s1"))
	os.WriteFile(dir+"/ev\nALARM none.steps.jsonl", data, 0o600)
	out, done, _ := start(t, Options{Dir: dir})
	j, err := journalfile.Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	st := chain.Step{At: "2026-05-01T10:00:01Z\u001b[2J\nALARM none", Kind: "x\u001b]0;title\u0007", Summary: "a\nALARM fake\u001b[31m",
		Data: strictjson.Obj()}
	if _, err := j.Append(journalfile.Header{Session: "s1"}, []chain.Step{st}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	waitFor(t, out, done, "#1 ")
	got := out.String()
	if strings.ContainsAny(got, "\u001b\u0007") || strings.Contains(got, "\nALARM") || strings.Contains(got, "ev\n") {
		t.Fatalf("control characters or a forged line reached the output:\n%q", got)
	}
}
