package server

import (
	"time"

	"github.com/logbook-project/logbook/internal/wal"
)

// The write-ahead log (internal/wal, docs/server.md): with group commit
// (and --fsync background) every append to a journal is also appended to
// DIR/wal, and a batch fsyncs that one file instead of each journal it
// wrote: under load the events of a batch come one per session, and one
// fsync per journal was one per event. The journals are fsynced about
// once a second, in the background (walEvery), and their segment goes.

// walEvery is how often the segment in use is retired (its journals
// fsynced): what Replay may have to write back at start is about this
// much of the server's appends.
const walEvery = time.Second

// walOpen replays what a server stopped by a crash or a power loss left
// in DIR/wal, whatever the fsync mode (and before anything reads the
// journals), then, with a group commit, starts the log and its rotation.
func (s *Server) walOpen() error {
	opts := wal.Options{SyncPath: s.cfg.SyncPath}
	var st wal.Stats
	var err error
	if s.commit == nil {
		st, err = wal.Replay(s.cfg.Dir, opts)
	} else {
		s.wal, st, err = wal.Open(s.cfg.Dir, opts)
	}
	if err != nil {
		return err
	}
	if st.Segments > 0 {
		s.cfg.Log.Info("write-ahead log replayed", "segments", st.Segments, "entries", st.Entries,
			"written", st.Written, "present", st.Present, "skipped", st.Skipped, "removed", st.Removed)
	}
	if s.commit == nil {
		return nil
	}
	s.walStop, s.walDone = make(chan struct{}), make(chan struct{})
	go s.walRotate(time.NewTicker(walEvery))
	return nil
}

// walRotate retires the segment in use every tick, and as soon as it is
// full, until Close.
func (s *Server) walRotate(t *time.Ticker) {
	defer close(s.walDone)
	defer t.Stop()
	for {
		select {
		case <-s.walStop:
			return
		case <-t.C:
		case <-s.wal.Full():
		}
		if err := s.wal.Rotate(); err != nil {
			s.cfg.Log.Error("write-ahead log", "error", err.Error())
		}
	}
}

// walClose stops the rotation and retires the segment in use: a server
// stopped cleanly leaves nothing to replay. Every journal is closed.
func (s *Server) walClose() error {
	if s.wal == nil {
		return nil
	}
	var err error
	s.walClosed.Do(func() {
		close(s.walStop)
		<-s.walDone
		err = s.wal.Close()
	})
	return err
}
