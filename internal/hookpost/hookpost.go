// Package hookpost sends one hook payload to a logbook server, for
// `record-step --server URL`: one HTTP/1.1 POST over a socket opened with
// system calls. It links neither net nor net/http: record-step runs on
// every tool call, and those packages would cost every hook start-up time
// (docs/server.md gives the measurement). It speaks plain HTTP to an IP
// address or localhost only; a remote server is reached through a local
// forwarder (an SSH tunnel, a TLS proxy).
package hookpost

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/sockcred"
)

// Target is a parsed server URL.
type Target struct {
	Host string // as written, for the Host header
	Path string // the path prefix, without a trailing slash
	sa   syscall.Sockaddr
	fam  int
	// Socket is the Unix socket's path for unix:/PATH ("" for TCP): the
	// answer is taken only from the socket's rightful owner (peer.go).
	Socket string
}

// Parse reads http://HOST[:PORT][/PATH], HOST an IPv4 address, [::1] or
// another bracketed IPv6 address, or localhost. The port defaults to 80.
//
// unix:/PATH is a Unix socket (logbook-server --listen unix:/PATH); the
// Host header is then "localhost".
func Parse(url string) (Target, error) { return parse(url, sockcred.Supported) }

// ErrNoUnixSocket: a unix: server URL on a system that cannot tell who
// answers on a Unix socket (Windows): the answer could be anyone's, so
// such a URL is refused; use http://127.0.0.1:PORT with --server-key.
var ErrNoUnixSocket = errors.New("unix: server URLs need a system that tells who answers on a Unix socket (Linux, macOS); here, use http://127.0.0.1:PORT with --server-key")

// parse is Parse where unixSockets says whether unix: URLs are offered.
func parse(url string, unixSockets bool) (Target, error) {
	var t Target
	if p, ok := strings.CutPrefix(url, "unix:"); ok {
		if !unixSockets {
			return t, fmt.Errorf("server URL %q: %w", url, ErrNoUnixSocket)
		}
		if !strings.HasPrefix(p, "/") || len(p) > 107 || strings.ContainsAny(p, " \r\n\x00") {
			return t, fmt.Errorf("server URL %q: want unix:/ABSOLUTE/PATH (at most 107 bytes)", url)
		}
		t.Host, t.Socket, t.sa, t.fam = "localhost", p, &syscall.SockaddrUnix{Name: p}, syscall.AF_UNIX
		return t, nil
	}
	rest, ok := strings.CutPrefix(url, "http://")
	if !ok {
		return t, fmt.Errorf("server URL %q: want http://HOST:PORT (https: reach it through a local forwarder)", url)
	}
	hostport, path, _ := strings.Cut(rest, "/")
	t.Host, t.Path = hostport, "/"+strings.TrimSuffix(path, "/")
	if t.Path == "/" {
		t.Path = ""
	}
	if strings.ContainsAny(t.Path, " \r\n?#") {
		return t, fmt.Errorf("server URL %q: the path holds a space, '?' or '#'", url)
	}
	host, port := hostport, "80"
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.HasSuffix(hostport, "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return t, fmt.Errorf("server URL %q: bad port %q", url, port)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if ip4, ok := parseIPv4(host); ok {
		t.sa, t.fam = &syscall.SockaddrInet4{Port: int(p), Addr: ip4}, syscall.AF_INET
		return t, nil
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		if ip6, ok := parseIPv6(host[1 : len(host)-1]); ok {
			t.sa, t.fam = &syscall.SockaddrInet6{Port: int(p), Addr: ip6}, syscall.AF_INET6
			return t, nil
		}
	}
	return t, fmt.Errorf("server URL %q: the host must be an IP address or localhost (no name lookup in a hook)", url)
}

func parseIPv4(s string) ([4]byte, bool) {
	var ip [4]byte
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return ip, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 8)
		if err != nil || (len(p) > 1 && p[0] == '0') {
			return ip, false
		}
		ip[i] = byte(n)
	}
	return ip, true
}

func parseIPv6(s string) ([16]byte, bool) {
	var ip [16]byte
	head, tail, double := strings.Cut(s, "::")
	groups := func(x string) ([]uint16, bool) {
		if x == "" {
			return nil, true
		}
		var out []uint16
		for _, g := range strings.Split(x, ":") {
			n, err := strconv.ParseUint(g, 16, 16)
			if err != nil || len(g) > 4 {
				return nil, false
			}
			out = append(out, uint16(n))
		}
		return out, true
	}
	h, ok1 := groups(head)
	tl, ok2 := groups(tail)
	if !ok1 || !ok2 || (!double && len(h) != 8) || len(h)+len(tl) > 8 || (double && len(h)+len(tl) == 8) {
		return ip, false
	}
	for i, g := range h {
		ip[2*i], ip[2*i+1] = byte(g>>8), byte(g)
	}
	for i, g := range tl {
		j := 16 - 2*len(tl) + 2*i
		ip[j], ip[j+1] = byte(g>>8), byte(g)
	}
	return ip, true
}

// Response is the server's answer.
type Response struct {
	Status int
	Body   []byte // at most the first 64 KiB
	// Truncated: the answer was longer than Post reads (Body is cut).
	Truncated bool
	head      []byte // the header lines, after the status line
}

// Header returns the value of the first header field named name (ASCII
// case-insensitive), trimmed, or "".
func (r Response) Header(name string) string {
	for rest := r.head; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(k), name) {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

// Post sends body to the target's path+route with the given extra
// headers, waiting at most timeout for each step.
func Post(t Target, route string, headers [][2]string, body []byte, timeout time.Duration) (Response, error) {
	return PostWait(t, route, headers, body, timeout, 0)
}

// WaitHeader says how long, in seconds, the hook waits for the answer
// (record-step --server-wait): a call the server holds for an approver is
// answered before that.
const WaitHeader = "X-Logbook-Wait"

// PostWait is Post for an answer that may come up to wait later: a call
// the server holds for an approver (record-step --server-wait). The
// answer's first read may take timeout+wait, the whole exchange 3×timeout
// + wait.
func PostWait(t Target, route string, headers [][2]string, body []byte, timeout, wait time.Duration) (Response, error) {
	var r Response
	c, err := newConn(t.fam)
	if err != nil {
		return r, fmt.Errorf("socket: %w", err)
	}
	defer c.close()
	// timeout bounds each step, and the whole exchange gets three: a
	// server that sends (or reads) a byte now and then must not hold the
	// hook, and with it the agent, past that.
	deadline := time.Now().Add(3*timeout + wait)
	step := timeout
	budget := func() error {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("no answer within %v", 3*timeout+wait)
		}
		c.setTimeout(min(step, left))
		return nil
	}
	_ = budget()
	if err := c.connect(t); err != nil {
		if t.Socket != "" {
			return r, fmt.Errorf("connect to %s: %w", t.Socket, err)
		}
		return r, fmt.Errorf("connect to %s: %w", t.Host, err)
	}
	if t.Socket != "" {
		if err := c.checkPeer(t.Socket); err != nil {
			return r, err
		}
	}
	var req bytes.Buffer
	req.Grow(256 + len(body))
	fmt.Fprintf(&req, "POST %s%s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n", t.Path, route, t.Host, len(body))
	for _, h := range headers {
		if strings.ContainsAny(h[0]+h[1], "\r\n") {
			return r, fmt.Errorf("header %s holds a line break", h[0])
		}
		fmt.Fprintf(&req, "%s: %s\r\n", h[0], h[1])
	}
	req.WriteString("\r\n")
	req.Write(body)
	for b := req.Bytes(); len(b) > 0; {
		if err := budget(); err != nil {
			return r, fmt.Errorf("send: %w", err)
		}
		n, err := c.write(b)
		if err != nil {
			return r, fmt.Errorf("send: %w", err)
		}
		b = b[n:]
	}
	resp := make([]byte, 0, 4096)
	step = timeout + wait // the first byte may wait for an approver
	for len(resp) < maxBody {
		if len(resp) == cap(resp) {
			resp = append(resp, 0)[:len(resp)]
		}
		if err := budget(); err != nil {
			return r, fmt.Errorf("read the answer: %w", err)
		}
		n, err := c.read(resp[len(resp):cap(resp)])
		if err != nil {
			return r, fmt.Errorf("read the answer: %w", err)
		}
		if n == 0 {
			break
		}
		resp = resp[:len(resp)+n]
		step = timeout
	}
	r, err = parseResponse(resp)
	r.Truncated = len(resp) >= maxBody
	return r, err
}

// maxBody bounds what Post reads of an answer.
const maxBody = 64 << 10

func parseResponse(b []byte) (Response, error) {
	var r Response
	line, rest, ok := bytes.Cut(b, []byte("\r\n"))
	f := strings.Fields(string(line))
	if !ok || len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return r, errors.New("the answer is not HTTP")
	}
	st, err := strconv.Atoi(f[1])
	if err != nil {
		return r, errors.New("the answer has no status")
	}
	r.Status = st
	if head, body, ok := bytes.Cut(rest, []byte("\r\n\r\n")); ok {
		r.head, r.Body = head, body
	} else if bytes.HasPrefix(rest, []byte("\r\n")) {
		r.Body = rest[2:] // no header at all
	}
	return r, nil
}
