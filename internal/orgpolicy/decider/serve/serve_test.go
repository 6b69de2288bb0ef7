package serve

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
)

const key = "0123456789abcdef0123456789abcdef"

func sockDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d + "/s"
}

// start runs Serve in a goroutine and waits until it listens.
func start(t *testing.T, o Options) <-chan error {
	t.Helper()
	ready := make(chan struct{})
	o.Ready = func(string) { close(ready) }
	if o.Tick == 0 {
		o.Tick = 20 * time.Millisecond
	}
	done := make(chan error, 1)
	go func() { done <- Serve(o) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve does not listen")
	}
	return done
}

func call(dir, k string, payload string) (decider.Answer, error) {
	c, err := decider.Connect(decider.Socket(dir, k))
	if err != nil {
		return decider.Answer{}, err
	}
	return c.Ask(&decider.Request{Key: k, Stdin: true, Payload: []byte(payload)}, 5*time.Second)
}

// TestServe: requests in parallel are each answered with the handler's
// answer under the decider's key; a request for another key is answered
// with nothing done (the caller names ErrWrongKey); a second decider for
// the same key leaves at once (ErrBusy); a handler that panics closes the
// connection (ErrDied); the status counts what was served; the decider
// leaves once idle, removing its socket.
func TestServe(t *testing.T) {
	dir := sockDir(t)
	var handled atomic.Int64
	done := start(t, Options{Dir: dir, Key: key, Idle: 300 * time.Millisecond, Handle: func(r decider.Request) decider.Answer {
		if string(r.Payload) == "panic" {
			panic("boom")
		}
		handled.Add(1)
		return decider.Answer{Exit: 2, Stdout: r.Payload}
	}})
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %o", st.Mode().Perm())
	}
	if st, _ := os.Stat(decider.Socket(dir, key)); st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %o", st.Mode().Perm())
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := strings.Repeat("x", i*1000)
			a, err := call(dir, key, p)
			if err != nil || a.Exit != 2 || string(a.Stdout) != p || a.Key != key {
				t.Errorf("call %d: %v %d", i, err, a.Exit)
			}
		}()
	}
	wg.Wait()
	if err := Serve(Options{Dir: dir, Key: key, Handle: func(decider.Request) decider.Answer { return decider.Answer{} }}); err != ErrBusy {
		t.Errorf("a second decider for the key: %v", err)
	}
	c, _ := decider.Connect(decider.Socket(dir, key))
	if _, err := c.Ask(&decider.Request{Key: "another"}, 5*time.Second); decider.Code(err) != decider.ErrWrongKey {
		t.Errorf("another key: %v", err)
	}
	if _, err := call(dir, key, "panic"); decider.Code(err) != decider.ErrDied {
		t.Errorf("handler panics: %v", err)
	}
	c, _ = decider.Connect(decider.Socket(dir, key))
	st, err := c.Status(5 * time.Second)
	if err != nil || st.Key != key || st.Served != 16 || st.Pid != uint64(os.Getpid()) || st.CPU == 0 {
		t.Errorf("status: %+v %v", st, err)
	}
	if handled.Load() != 16 {
		t.Errorf("handled %d", handled.Load())
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not idle after 10 s")
	}
	if _, err := os.Stat(decider.Socket(dir, key)); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, err := call(dir, key, "x"); decider.Code(err) != decider.ErrAbsent {
		t.Errorf("after leaving: %v", err)
	}
}

// TestServeStale: a decider whose binary or policy changed leaves at the
// next tick even when busy callers keep it from idling.
func TestServeStale(t *testing.T) {
	dir := sockDir(t)
	var stale atomic.Bool
	done := start(t, Options{Dir: dir, Key: key, Idle: time.Hour, Stale: stale.Load,
		Handle: func(decider.Request) decider.Answer { return decider.Answer{} }})
	if _, err := call(dir, key, "x"); err != nil {
		t.Fatal(err)
	}
	stale.Store(true)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a stale decider stays")
	}
}

// TestServeStaleSocket: a socket file left by a decider that was killed
// is replaced by the next one (it holds the lock, so the file is dead).
func TestServeStaleSocket(t *testing.T) {
	dir := sockDir(t)
	if err := decider.Secure(dir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(decider.Socket(dir, key), nil, 0o600)
	done := start(t, Options{Dir: dir, Key: key, Idle: 100 * time.Millisecond,
		Handle: func(decider.Request) decider.Answer { return decider.Answer{Exit: 1} }})
	if a, err := call(dir, key, "x"); err != nil || a.Exit != 1 {
		t.Fatalf("%+v %v", a, err)
	}
	<-done
}

// TestServeInsecureDir: a socket directory others can enter is refused.
func TestServeInsecureDir(t *testing.T) {
	dir := sockDir(t)
	os.Mkdir(dir, 0o755)
	os.Chmod(dir, 0o755)
	err := Serve(Options{Dir: dir, Key: key, Handle: func(decider.Request) decider.Answer { return decider.Answer{} }})
	if decider.Code(err) != decider.ErrInsecure {
		t.Fatalf("0755: %v", err)
	}
}
