package decider

import (
	"os"
	"time"
)

// Supported is false: Windows cannot tell who is at the other end of a
// Unix socket, so no decider runs and record-step execs logbook-policy
// hook for each gated call (docs/platforms.md).
const Supported = false

// StatIdentity is the identity of the file at path: size and
// modification time only (os.Stat on Windows gives no device or inode).
func StatIdentity(path string) (Identity, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Size: st.Size(), Mtime: st.ModTime().UnixNano()}, nil
}

// SelfIdentity is the running program's file's identity.
func SelfIdentity() (Identity, error) {
	exe, err := os.Executable()
	if err != nil {
		return Identity{}, err
	}
	return StatIdentity(exe)
}

// Secure is ErrUnsupported on Windows.
func Secure(dir string) error { return Unsupported() }

// Conn is a connection to a decider; there is none on Windows.
type Conn struct{}

// Connect is ErrUnsupported on Windows.
func Connect(sock string) (*Conn, error) { return nil, Unsupported() }

// Close does nothing.
func (c *Conn) Close() error { return nil }

// Ask is ErrUnsupported on Windows.
func (c *Conn) Ask(req *Request, timeout time.Duration) (Answer, error) {
	return Answer{}, Unsupported()
}

// Status is ErrUnsupported on Windows.
func (c *Conn) Status(timeout time.Duration) (Status, error) { return Status{}, Unsupported() }

// NeedStart is false: no decider is started on Windows.
func NeedStart(dir, key string) bool { return false }

// Start is ErrUnsupported on Windows.
func Start(exe string, args, env []string) error { return Unsupported() }
