//go:build unix

package hookpost

import (
	"fmt"
	"syscall"

	"github.com/logbook-project/logbook/internal/sockcred"
)

// checkPeer takes the answer on a Unix socket only from its rightful
// owner. A server that listens where the agent's user cannot create
// files (a folder root or the server's user owns, writable by no one
// else) cannot be squatted: while it is down, nothing answers, and the
// hook reports the event as not sent rather than a stranger's 200. Three
// checks make that hold whatever the configuration:
//   - the socket's folder is writable by its owner only (else anyone
//     could have put a socket there first);
//   - the folder is not the hook's own user's (unless that is root): the
//     agent's own folder is the agent's to squat;
//   - the process at the other end (sockcred.Peer) is root or the folder's
//     owner.
func checkPeer(fd int, path string) error {
	dir := path
	for i := len(dir) - 1; i > 0; i-- {
		if dir[i] == '/' {
			dir = dir[:i]
			break
		}
	}
	if dir == path {
		dir = "/"
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return fmt.Errorf("server socket %s: %w", path, err)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("server socket %s: its folder is writable by group or others (mode %o), so anyone could have put a socket there: not sent (give the server a folder only it can write, e.g. /run/logbook)", path, st.Mode&0o7777)
	}
	if me := uint32(syscall.Geteuid()); st.Uid == me && me != 0 {
		return fmt.Errorf("server socket %s: its folder is this user's own (uid %d), so this user could have put a socket there: not sent (the server's folder must belong to root or the server's user)", path, me)
	}
	cred, err := sockcred.Peer(fd)
	if err != nil {
		return fmt.Errorf("server socket %s: cannot read who answers: %w", path, err)
	}
	if cred.Uid != 0 && cred.Uid != st.Uid {
		return fmt.Errorf("server socket %s: answered by uid %d (pid %d), not root or the folder's owner (uid %d): not sent", path, cred.Uid, cred.Pid, st.Uid)
	}
	return nil
}
