// Package sockcred is the platform seam for the Unix sockets logbook's
// hooks talk over (record-step --server unix:/PATH, the policy decider):
// a close-on-exec stream socket, and who is at the other end of one.
//
// Linux tells the peer with SO_PEERCRED, macOS with LOCAL_PEERCRED and
// LOCAL_PEERPID. Windows has AF_UNIX sockets but no peer credentials on
// them: there Supported is false and every call is ErrUnsupported, and
// the modes built on them are not offered (docs/platforms.md).
package sockcred

import "errors"

// Cred is the process at the other end of a socket: its effective user
// id, and its process id (0 where the system does not tell it).
type Cred struct {
	Uid uint32
	Pid int32
}

// ErrUnsupported: this system cannot tell who is at the other end of a
// Unix socket, so nothing that relies on it is offered.
var ErrUnsupported = errors.New("this system cannot tell who is at the other end of a Unix socket (Unix sockets with peer credentials are offered on Linux and macOS only)")
