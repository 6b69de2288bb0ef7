package server

import (
	"errors"
	"fmt"
	"os"
)

// DefaultMinFree is the free space the data directory's file system must
// have for the server to take a new session (Config.MinFree): sessions
// already open go on into it, so that the events of a session the server
// started are recorded, and any it must refuse on a full disk are counted
// in that session's record (seq.go), not lost without a word.
const DefaultMinFree = 256 << 20

// errLowSpace: a new session refused, its file system below MinFree.
var errLowSpace = errors.New("low disk space")

// roomForNew refuses a new session when the data directory's file system
// has less than MinFree bytes free for the server's user (freeBytes:
// space_unix.go; a platform without it checks nothing).
func (s *Server) roomForNew() error {
	if s.cfg.MinFree <= 0 {
		return nil
	}
	free, ok := freeBytes(s.cfg.Dir)
	if !ok || free >= s.cfg.MinFree {
		return nil
	}
	return fmt.Errorf("%w: the data directory %s has %d MiB free, under the %d MiB kept for the sessions already open (--min-free): no new session is taken until space is freed; give the server's data a file system of its own (docs/server.md)",
		errLowSpace, s.cfg.Dir, free>>20, s.cfg.MinFree>>20)
}

// isNew reports whether the session has no journal yet.
func isNew(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist)
}
