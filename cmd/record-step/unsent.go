package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journalfile"
)

// Each event record-step --server forwards carries the hook's own count
// of the session's events, X-Logbook-Seq: N for the session's Nth event
// seen by a hook in this folder, sent or not. The server records any
// number it never receives as a named gap (sequenceHoles), and a number
// that goes back (the count was deleted or edited: the folder is the
// agent's) as a reset, after which loss cannot be ruled out
// (sequenceResets); docs/server.md states the guarantee.
//
// The count is DIR/ID.server-seq, one byte per event appended with
// O_APPEND: the file offset after the write is this event's number,
// unique among parallel hooks, with no lock (POSIX sets the offset to the
// end of the file and writes as one step).
const seqSuffix = ".server-seq"

// nextSeq returns the session's next number, 0 when it cannot be taken
// (no folder, no session id, or the file cannot be written): the event is
// then sent without one.
func nextSeq(dir, session string) int64 {
	if dir == "" || journalfile.ValidSessionID(session) != nil {
		return 0
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0
	}
	f, err := durable.OpenNoFollow(filepath.Join(dir, session+seqSuffix), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0
	}
	defer f.Close()
	if _, err := f.Write([]byte{'.'}); err != nil {
		return 0
	}
	n, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	return n
}

func seqHeader(n int64) [2]string {
	return [2]string{"X-Logbook-Seq", strconv.FormatInt(n, 10)}
}
