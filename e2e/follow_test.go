package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startFollow runs logbook-verify --follow in the background.
func startFollow(t *testing.T, target string) (*exec.Cmd, *lockedBuf, <-chan int) {
	cmd := exec.Command(filepath.Join(bin, "logbook-verify"), "--follow", target)
	out := &lockedBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		done <- code
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, out, done
}

func waitOutput(t *testing.T, out *lockedBuf, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFollowCatchesTamper: the follower prints events as record-step
// appends them, and exits 1 with STEP_ALTERED when a step it has seen is
// edited in place.
func TestFollowCatchesTamper(t *testing.T) {
	t.Parallel()
	s := synthSession(t, "tool_heavy")
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		recordStep(t, dir, s.at(i), s.events[i])
	}
	_, out, done := startFollow(t, dir)
	waitOutput(t, out, " #2 ")
	for i := 3; i < 6; i++ {
		recordStep(t, dir, s.at(i), s.events[i])
	}
	waitOutput(t, out, " #5 ")
	files, _ := filepath.Glob(filepath.Join(dir, "*.steps.jsonl"))
	data, _ := os.ReadFile(files[0])
	i := bytes.Index(data, []byte(`"kind":"`)) // the first step's kind
	f, _ := os.OpenFile(files[0], os.O_WRONLY, 0)
	f.WriteAt([]byte(`"kind":"X`), int64(i))
	f.Close()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(out.String(), "ALARM STEP_ALTERED") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no alarm:\n%s", out)
	}
}

// TestFollowStopsOnSIGINT: Ctrl-C is a clean stop, exit 0.
func TestFollowStopsOnSIGINT(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, out, done := startFollow(t, filepath.Join(dir, "later.steps.jsonl"))
	waitOutput(t, out, "waiting for session later")
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(out.String(), "-- stopped") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("SIGINT did not stop the follower")
	}
}
