package hookpost

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	good := map[string]struct {
		host, path string
		port       int
	}{
		"http://127.0.0.1:8421":          {"127.0.0.1:8421", "", 8421},
		"http://127.0.0.1:8421/":         {"127.0.0.1:8421", "", 8421},
		"http://localhost:9/base/":       {"localhost:9", "/base", 9},
		"http://10.1.2.3":                {"10.1.2.3", "", 80},
		"http://[::1]:8421":              {"[::1]:8421", "", 8421},
		"http://[2001:db8::1]:1/x":       {"[2001:db8::1]:1", "/x", 1},
		"http://[1:2:3:4:5:6:7:8]:65535": {"[1:2:3:4:5:6:7:8]:65535", "", 65535},
	}
	for u, want := range good {
		tg, err := Parse(u)
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		port := 0
		switch sa := tg.sa.(type) {
		case *syscall.SockaddrInet4:
			port = sa.Port
		case *syscall.SockaddrInet6:
			port = sa.Port
		}
		if tg.Host != want.host || tg.Path != want.path || port != want.port {
			t.Errorf("%s: %+v port %d", u, tg, port)
		}
	}
	for _, u := range []string{"https://127.0.0.1:1", "127.0.0.1:1", "http://example.com:1", "http://127.0.0.1:0",
		"http://127.0.0.1:99999", "http://127.1:1", "http://01.2.3.4:1", "http://[::1", "http://[1::2::3]:1",
		"http://127.0.0.1:1/a b", "http://127.0.0.1:1/?x", "http://[1:2:3:4:5:6:7:8:9]:1", "http://"} {
		if _, err := Parse(u); err == nil {
			t.Errorf("%s: accepted", u)
		}
	}
}

// TestPost against a real HTTP server: the request arrives whole, with its
// headers, and the status and body come back.
func TestPost(t *testing.T) {
	var got *http.Request
	var body string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"PAYLOAD_NOT_JSON"}`)
		}
	}))
	defer ts.Close()
	tg, err := Parse(ts.URL + "/pre")
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.Repeat("x", 300<<10) // larger than a socket buffer
	resp, err := Post(tg, "/v1/hooks/claude-code", [][2]string{{"X-Logbook-Cwd", "/w"}, {"Authorization", "Bearer t"}}, []byte(payload), 5*time.Second)
	if err != nil || resp.Status != 200 || len(resp.Body) != 0 {
		t.Fatalf("%+v %v", resp, err)
	}
	if got.URL.Path != "/pre/v1/hooks/claude-code" || got.Header.Get("X-Logbook-Cwd") != "/w" || got.Header.Get("Authorization") != "Bearer t" ||
		got.Header.Get("Content-Type") != "application/json" || body != payload {
		t.Fatalf("request: %s %v (%d bytes)", got.URL, got.Header, len(body))
	}
	resp, err = Post(tg, "/v1/hooks?fail=1", nil, []byte("{}"), 5*time.Second)
	if err != nil || resp.Status != 400 || string(resp.Body) != `{"error":"PAYLOAD_NOT_JSON"}` {
		t.Fatalf("%+v %v", resp, err)
	}
	if _, err := Post(tg, "/", [][2]string{{"X", "a\r\nInjected: 1"}}, nil, time.Second); err == nil {
		t.Fatal("a header with a line break was sent")
	}
}

// TestPostNoServer: a refused connection and a server that never answers
// are errors, the latter within the timeout.
func TestPostNoServer(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	tg, _ := Parse("http://" + addr)
	if _, err := Post(tg, "/", nil, []byte("{}"), time.Second); err == nil {
		t.Fatal("no error from a closed port")
	}
	silent, _ := net.Listen("tcp", "127.0.0.1:0")
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tg, _ = Parse("http://" + silent.Addr().String())
	start := time.Now()
	if _, err := Post(tg, "/", nil, []byte("{}"), 300*time.Millisecond); err == nil {
		t.Fatal("no error from a server that never answers")
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestParseResponse(t *testing.T) {
	for in, status := range map[string]int{"HTTP/1.1 200 OK\r\n\r\n": 200, "HTTP/1.0 413 Too Large\r\nA: b\r\n\r\n{}": 413} {
		r, err := parseResponse([]byte(in))
		if err != nil || r.Status != status {
			t.Errorf("%q: %+v %v", in, r, err)
		}
	}
	for _, in := range []string{"", "SSH-2.0\r\n", "HTTP/1.1 abc\r\n\r\n", "HTTP/1.1\r\n"} {
		if _, err := parseResponse([]byte(in)); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8421", "http://[::1]:1/x", "http://localhost", "http://[1::]:2", "unix:/run/logbook/hooks.sock", "unix:rel", "unix:/a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		tg, err := Parse(u)
		if err == nil && (tg.sa == nil || strings.ContainsAny(tg.Path+tg.Host+tg.Socket, " \r\n\x00") || tg.Socket != "" && tg.Socket[0] != '/') {
			t.Fatalf("%q: %+v", u, tg)
		}
		_, _ = parseResponse([]byte(u))
	})
}

// A server that answers one byte now and then, each well within the
// per-step timeout, must not hold the hook for long: 64 KiB at one byte
// per 100 ms would be nearly two hours.
func TestPostDrip(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Read(make([]byte, 4096))
		for i := 0; i < 200; i++ {
			if _, err := c.Write([]byte("H")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	tg, _ := Parse("http://" + l.Addr().String())
	start := time.Now()
	if _, err := Post(tg, "/", nil, []byte("{}"), 300*time.Millisecond); err == nil {
		t.Fatal("no error from a server that drips")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a dripping server held Post for %v", took)
	}
}

// TestUnixPeer: an answer on a Unix socket is taken from a server whose
// folder is root's (the test runs as root, as CI does), and refused when
// the folder is writable by others, even though the server answers.
func TestUnixPeer(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the folder's owner decides")
	}
	for _, mode := range []os.FileMode{0o755, 0o777} {
		dir := t.TempDir()
		os.Chmod(dir, mode)
		sock := dir + "/s.sock"
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				buf := make([]byte, 4096)
				c.Read(buf)
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
				c.Close()
			}
		}()
		tg, err := Parse("unix:" + sock)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Post(tg, "/v1/hooks", nil, []byte("{}"), 2*time.Second)
		if mode == 0o755 && (err != nil || r.Status != 200) {
			t.Errorf("root's folder: %v %+v", err, r)
		}
		if mode == 0o777 && (err == nil || !strings.Contains(err.Error(), "writable by group or others")) {
			t.Errorf("a folder anyone can write: %v %+v", err, r)
		}
		ln.Close()
	}
}

// TestNoUnixSocket: where the system cannot tell who answers on a Unix
// socket (Windows), a unix: URL is refused by name; http: still parses.
func TestNoUnixSocket(t *testing.T) {
	if _, err := parse("unix:/run/logbook/hooks.sock", false); !errors.Is(err, ErrNoUnixSocket) {
		t.Errorf("unix: without peer credentials: %v", err)
	}
	if _, err := parse("http://127.0.0.1:8421", false); err != nil {
		t.Errorf("http: %v", err)
	}
	if _, err := parse("unix:/run/logbook/hooks.sock", true); err != nil {
		t.Errorf("unix: with peer credentials: %v", err)
	}
}
