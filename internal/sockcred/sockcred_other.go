//go:build !linux && !darwin

package sockcred

// Supported: this system cannot tell who is at the other end of a Unix
// socket (Windows: AF_UNIX sockets have no peer credentials).
const Supported = false

// Socket is ErrUnsupported here.
func Socket(fam int) (int, error) { return -1, ErrUnsupported }

// Peer is ErrUnsupported here.
func Peer(fd int) (Cred, error) { return Cred{}, ErrUnsupported }
