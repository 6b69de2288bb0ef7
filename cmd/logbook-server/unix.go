package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/sockcred"
)

// listenAddr opens --listen: HOST:PORT over TCP, or unix:/PATH, a Unix
// socket. A socket in a folder only root or the server's user can write
// cannot be squatted by the agent while the server is down (a loopback
// port can: any local user may bind it first), and record-step --server
// unix:/PATH takes an answer only from that folder's owner
// (internal/hookpost). The socket is made 0666: whoever may send events
// connects; the folder's permissions, not the socket's, keep others from
// replacing it.
func listenAddr(addr string) (net.Listener, error) {
	path, ok := strings.CutPrefix(addr, "unix:")
	if !ok {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("%v (another server there? choose another --listen; 127.0.0.1:0 takes a free port)", err)
		}
		return ln, nil
	}
	if !sockcred.Supported {
		return nil, fmt.Errorf("--listen %s: %v: listen on 127.0.0.1:PORT and give the hooks --server-key", addr, sockcred.ErrUnsupported)
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("--listen %s: want unix:/ABSOLUTE/PATH", addr)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %v (make the folder first, owned by the server's user, mode 0755)", addr, err)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("--listen %s: the folder %s is writable by group or others (mode %v): anyone could put a socket there; hooks refuse it", addr, dir, st.Mode().Perm())
	}
	// A socket left by an earlier run answers nothing: replace it. A
	// socket that answers belongs to a server still running.
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("--listen %s: %s exists and is not a socket", addr, path)
		}
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("--listen %s: another server answers there", addr)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o666); err != nil {
		ln.Close()
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, nil
}

// isUnix reports whether --listen names a Unix socket.
func isUnix(addr string) bool { return strings.HasPrefix(addr, "unix:") }
