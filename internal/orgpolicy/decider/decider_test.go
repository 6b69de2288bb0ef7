//go:build unix

// Unix only: the decider is (Supported is false on Windows,
// docs/platforms.md).

package decider

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/sockcred"
)

func sampleRequest() Request {
	return Request{Key: "k1", Cwd: "/w", Args: []string{"--policy", "p.json", "--policy-key", "k.pub"},
		Env: []string{"LOGBOOK_DIR=/d", "EMPTY="}, Stdin: true, Payload: []byte(`{"session_id":"s"}`)}
}

// TestWireRoundTrip: every message reads back as it was written.
func TestWireRoundTrip(t *testing.T) {
	r := sampleRequest()
	got, status, err := ParseRequest(r.Marshal())
	if err != nil || status || !reflect.DeepEqual(got, r) {
		t.Fatalf("request: %+v %v %v", got, status, err)
	}
	r2 := Request{Key: "k", Payload: []byte{}}
	got, _, err = ParseRequest(r2.Marshal())
	if err != nil || got.Key != "k" || got.Stdin || len(got.Args) != 0 || len(got.Payload) != 0 {
		t.Fatalf("empty request: %+v %v", got, err)
	}
	a := Answer{Key: "k1", Exit: 2, Stdout: []byte("out"), Stderr: []byte("err\n")}
	ga, err := ParseAnswer(a.Marshal())
	if err != nil || !reflect.DeepEqual(ga, a) {
		t.Fatalf("answer: %+v %v", ga, err)
	}
	s := Status{Key: "k1", Pid: 7, Served: 3, CPU: 12345}
	gs, err := ParseStatus(s.Marshal())
	if err != nil || gs != s {
		t.Fatalf("status: %+v %v", gs, err)
	}
	if _, status, err := ParseRequest(StatusRequest()); err != nil || !status {
		t.Fatalf("status request: %v %v", status, err)
	}
}

// TestWireGarbage: anything that is not a whole message of the right
// kind is ErrGarbage, never a panic or a partial value.
func TestWireGarbage(t *testing.T) {
	req := sampleRequest()
	good := req.Marshal()
	ans := (&Answer{Key: "k", Exit: 0}).Marshal()
	over := append([]byte(magic+"A"), 0xff, 0xff, 0xff, 0xff)
	big := (&Answer{Key: "k", Exit: 256}).Marshal()
	noKey := (&Request{}).Marshal()
	badStdin := bytes.Clone(good)
	badStdin[len(badStdin)-4-len(req.Payload)-1] = 7
	for name, msg := range map[string][]byte{
		"empty": nil, "HTTP": []byte("HTTP/1.1 200 OK\r\n\r\n"), "cut": good[:len(good)-1],
		"trailing": append(bytes.Clone(good), 0), "an answer": ans, "over the limit": over,
		"no key": noKey, "stdin flag 7": badStdin,
	} {
		if _, _, err := ParseRequest(msg); Code(err) != ErrGarbage {
			t.Errorf("request %s: %v", name, err)
		}
	}
	for name, msg := range map[string][]byte{
		"empty": nil, "a request": good, "cut": ans[:len(ans)-2], "exit 256": big, "over the limit": over,
		"trailing": append(bytes.Clone(ans), 'x'),
	} {
		if _, err := ParseAnswer(msg); Code(err) != ErrGarbage {
			t.Errorf("answer %s: %v", name, err)
		}
	}
}

// FuzzParse: the decider's request parser and the client's answer and
// status parsers take any bytes: a value that reads back the same, or
// ErrGarbage.
func FuzzParse(f *testing.F) {
	r := sampleRequest()
	f.Add(r.Marshal())
	f.Add((&Answer{Key: "k", Exit: 2, Stdout: []byte("x")}).Marshal())
	f.Add((&Status{Key: "k", Pid: 1}).Marshal())
	f.Add(StatusRequest())
	f.Add([]byte(magic + "Q\x00\x00\x00\x04\x00\x00\x00\x09"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if req, status, err := ParseRequest(b); err != nil {
			if Code(err) != ErrGarbage {
				t.Fatalf("request: %v", err)
			}
		} else if !status && !bytes.Equal(req.Marshal(), b) {
			t.Fatalf("request does not read back: %q", b)
		}
		if a, err := ParseAnswer(b); err != nil {
			if Code(err) != ErrGarbage {
				t.Fatalf("answer: %v", err)
			}
		} else if !bytes.Equal(a.Marshal(), b) {
			t.Fatalf("answer does not read back: %q", b)
		}
		if s, err := ParseStatus(b); err != nil {
			if Code(err) != ErrGarbage {
				t.Fatalf("status: %v", err)
			}
		} else if !bytes.Equal(s.Marshal(), b) {
			t.Fatalf("status does not read back: %q", b)
		}
	})
}

// TestKeyOf: the key changes with each thing a decider depends on.
func TestKeyOf(t *testing.T) {
	id := Identity{Dev: 1, Ino: 2, Size: 3, Mtime: 4}
	base := KeyOf(id, []byte("policy"), [][]byte{[]byte("k1")}, Mode("deny", ""))
	if len(base) != 32 || base != KeyOf(id, []byte("policy"), [][]byte{[]byte("k1")}, Mode("deny", "")) {
		t.Fatalf("key %q not stable", base)
	}
	for name, k := range map[string]string{
		"another binary (inode)":  KeyOf(Identity{Dev: 1, Ino: 9, Size: 3, Mtime: 4}, []byte("policy"), [][]byte{[]byte("k1")}, "deny"),
		"a rebuilt binary (time)": KeyOf(Identity{Dev: 1, Ino: 2, Size: 3, Mtime: 5}, []byte("policy"), [][]byte{[]byte("k1")}, "deny"),
		"another policy":          KeyOf(id, []byte("policy2"), [][]byte{[]byte("k1")}, "deny"),
		"another key":             KeyOf(id, []byte("policy"), [][]byte{[]byte("k2")}, "deny"),
		"a second key":            KeyOf(id, []byte("policy"), [][]byte{[]byte("k1"), []byte("k2")}, "deny"),
		"fail open":               KeyOf(id, []byte("policy"), [][]byte{[]byte("k1")}, "allow"),
		"a pinned digest":         KeyOf(id, []byte("policy"), [][]byte{[]byte("k1")}, Mode("deny", "ab")),
	} {
		if k == base {
			t.Errorf("%s: same key", name)
		}
	}
}

// TestDirAbsolute: a relative LOGBOOK_POLICYD_DIR is made absolute, as
// the decider (which runs in /) must see the same directory as its callers.
func TestDirAbsolute(t *testing.T) {
	d := Dir(func(k string) string {
		if k == "LOGBOOK_POLICYD_DIR" {
			return "rel/pd"
		}
		return ""
	})
	wd, _ := os.Getwd()
	if d != filepath.Join(wd, "rel/pd") {
		t.Errorf("Dir = %q, want it under %s", d, wd)
	}
}

// TestSecure: the socket directory is made 0700; one that others can
// enter, or that is a symlink, or another user's, is ErrInsecure.
func TestSecure(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "a", "pd")
	if err := Secure(d); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
		t.Errorf("made with mode %o", st.Mode().Perm())
	}
	open := filepath.Join(root, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o755)
	if err := Secure(open); Code(err) != ErrInsecure || !strings.Contains(err.Error(), "mode 755") {
		t.Errorf("0755: %v", err)
	}
	link := filepath.Join(root, "link")
	os.Symlink(d, link)
	if err := Secure(link); Code(err) != ErrInsecure {
		t.Errorf("symlink: %v", err)
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(root, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 4321, 4321)
		if err := Secure(other); Code(err) != ErrInsecure || !strings.Contains(err.Error(), "uid 4321") {
			t.Errorf("another user's: %v", err)
		}
	}
}

// fake listens on dir/KEY.sock and does what serve does with each
// connection.
func fake(t *testing.T, serve func(c net.Conn)) (dir, key string) {
	dir, key = shortDir(t), "0123456789abcdef0123456789abcdef"
	l, err := net.Listen("unix", Socket(dir, key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return dir, key
}

func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// readRequest reads one whole request from c.
func readRequest(c net.Conn) (Request, error) {
	head := make([]byte, HeaderLen)
	if _, err := readAll(c, head); err != nil {
		return Request{}, err
	}
	n, err := BodyLen(head)
	if err != nil {
		return Request{}, err
	}
	msg := append(head, make([]byte, n)...)
	if _, err := readAll(c, msg[HeaderLen:]); err != nil {
		return Request{}, err
	}
	r, _, err := ParseRequest(msg)
	return r, err
}

func readAll(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func ask(t *testing.T, dir, key string, timeout time.Duration) (Answer, error) {
	t.Helper()
	c, err := Connect(Socket(dir, key))
	if err != nil {
		return Answer{}, err
	}
	r := sampleRequest()
	r.Key = key
	return c.Ask(&r, timeout)
}

// TestClient: an answer for the key comes back as it was sent; a missing
// decider is ErrAbsent; one that dies mid-call ErrDied; one that hangs
// ErrDied at the timeout; garbage ErrGarbage; another key's ErrWrongKey.
func TestClient(t *testing.T) {
	t.Run("answers", func(t *testing.T) {
		dir, key := fake(t, func(c net.Conn) {
			r, err := readRequest(c)
			if err != nil {
				return
			}
			c.Write((&Answer{Key: r.Key, Exit: 2, Stdout: r.Payload, Stderr: []byte(r.Cwd)}).Marshal())
		})
		a, err := ask(t, dir, key, 5*time.Second)
		if err != nil || a.Exit != 2 || string(a.Stdout) != `{"session_id":"s"}` || string(a.Stderr) != "/w" {
			t.Fatalf("%+v %v", a, err)
		}
	})
	t.Run("trickles", func(t *testing.T) {
		// A whole answer, one byte every 20 ms: each read is quick,
		// the exchange is not. One deadline for the exchange ends it
		// (a deadline per read would wait for all of it).
		dir, key := fake(t, func(c net.Conn) {
			r, err := readRequest(c)
			if err != nil {
				return
			}
			for _, b := range (&Answer{Key: r.Key, Stdout: make([]byte, 200)}).Marshal() {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		if a, err := ask(t, dir, key, 300*time.Millisecond); Code(err) != ErrDied {
			t.Fatalf("a trickled answer: %+v %v, want ErrDied", a, err)
		}
	})
	t.Run("absent", func(t *testing.T) {
		dir := shortDir(t)
		if _, err := ask(t, dir, "nokey", time.Second); Code(err) != ErrAbsent {
			t.Errorf("no socket: %v", err)
		}
		// A socket file left by a dead decider: refused.
		l, _ := net.Listen("unix", Socket(dir, "dead"))
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		l.Close()
		if _, err := ask(t, dir, "dead", time.Second); Code(err) != ErrAbsent {
			t.Errorf("dead socket: %v", err)
		}
	})
	t.Run("died mid-call", func(t *testing.T) {
		dir, key := fake(t, func(c net.Conn) { readRequest(c) })
		if _, err := ask(t, dir, key, 5*time.Second); Code(err) != ErrDied {
			t.Errorf("closed: %v", err)
		}
		dir, key = fake(t, func(c net.Conn) {
			readRequest(c)
			m := (&Answer{Key: "0123456789abcdef0123456789abcdef", Stdout: []byte("long")}).Marshal()
			c.Write(m[:len(m)-3])
		})
		if _, err := ask(t, dir, key, 5*time.Second); Code(err) != ErrDied {
			t.Errorf("half an answer: %v", err)
		}
	})
	t.Run("hangs", func(t *testing.T) {
		dir, key := fake(t, func(c net.Conn) { readRequest(c); time.Sleep(2 * time.Second) })
		if _, err := ask(t, dir, key, 200*time.Millisecond); Code(err) != ErrDied || !strings.Contains(err.Error(), "in time") {
			t.Errorf("hangs: %v", err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		dir, key := fake(t, func(c net.Conn) { readRequest(c); c.Write([]byte("HTTP/1.1 200 OK\r\n\r\n")) })
		if _, err := ask(t, dir, key, 5*time.Second); Code(err) != ErrGarbage {
			t.Errorf("garbage: %v", err)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		dir, key := fake(t, func(c net.Conn) {
			readRequest(c)
			c.Write((&Answer{Key: "ffffffffffffffffffffffffffffffff"}).Marshal())
		})
		if _, err := ask(t, dir, key, 5*time.Second); Code(err) != ErrWrongKey {
			t.Errorf("wrong key: %v", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		dir, key := fake(t, func(c net.Conn) { readRequest(c) })
		c, err := Connect(Socket(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		r := Request{Key: key, Payload: make([]byte, MaxPayload+1)}
		if _, err := c.Ask(&r, time.Second); Code(err) != ErrTooLarge {
			t.Errorf("too large: %v", err)
		}
	})
}

// TestClientRefusesAnotherUsersSocket: a socket that is not the user's
// own, or answered by another user's process, is ErrInsecure before
// anything is sent. Seen from uid 4321, this user's socket is another
// user's; run as root, the socket file is also given away for real.
func TestClientRefusesAnotherUsersSocket(t *testing.T) {
	sent := make(chan bool, 1)
	dir, key := fake(t, func(c net.Conn) {
		_, err := readRequest(c)
		sent <- err == nil
	})
	c, err := Connect(Socket(dir, key))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPeerAs(c.fd, Socket(dir, key), 4321); Code(err) != ErrInsecure || !strings.Contains(err.Error(), "not a socket of this user's") {
		t.Errorf("seen from uid 4321: %v", err)
	}
	c.Close()
	if os.Geteuid() == 0 {
		// The socket file given to uid 4321: seen from 4321 the file is
		// its own, but the process answering (SO_PEERCRED) is root's.
		os.Chown(Socket(dir, key), 4321, 4321)
		c, err := Connect(Socket(dir, key)) // as root: the file is another user's
		if Code(err) != ErrInsecure || !strings.Contains(err.Error(), "uid 4321") {
			t.Errorf("another user's socket file: %v", err)
		}
		if c != nil {
			c.Close()
		}
		fd, _ := sockcred.Socket(syscall.AF_UNIX)
		defer syscall.Close(fd)
		if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: Socket(dir, key)}); err != nil {
			t.Fatal(err)
		}
		if err := checkPeerAs(fd, Socket(dir, key), 4321); Code(err) != ErrInsecure || !strings.Contains(err.Error(), "answered by uid 0") {
			t.Errorf("answered by another user's process: %v", err)
		}
	}
	select {
	case ok := <-sent:
		if ok {
			t.Error("a request was sent to another user's socket")
		}
	case <-time.After(100 * time.Millisecond):
	}
}

// TestNeedStart: a held lock means a decider lives; a free one, none.
func TestNeedStart(t *testing.T) {
	dir := shortDir(t)
	if !NeedStart(dir, "k") {
		t.Fatal("no decider, yet NeedStart says one lives")
	}
	f, _ := os.OpenFile(LockFile(dir, "k"), os.O_RDWR, 0)
	defer f.Close()
	if err := flockNB(f); err != nil {
		t.Fatal(err)
	}
	if NeedStart(dir, "k") {
		t.Error("the lock is held, yet NeedStart says start one")
	}
}
