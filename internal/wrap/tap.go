package wrap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"time"
)

// tapBuffer is the size of one read from the command's pipe. With the
// pipe enlarged to the same size (pipeSize), a command writing fast hands
// over a mebibyte per system call instead of 64 KiB.
const tapBuffer = 1 << 20

// tapBuffers is how many buffers one tap may fill before the hash catches
// up: once output is large, hashing runs on its own goroutine, beside the
// copying, so a fast command is slowed by the slower of the two, not by
// their sum. Buffers are made as needed: a quiet stream makes one.
const tapBuffers = 4

// tap passes one output stream of the command (stdout or stderr) on to the
// wrapper's own, as it comes, hashing and counting what it passes on: a
// command printing gigabytes is never held in memory.
type tap struct {
	r    *os.File // the read end of the command's pipe
	w    io.Writer
	h    hash.Hash
	n    int64
	werr error // the first write error; the tap stopped reading there
	cut  bool  // the tap stopped before the pipe's end (see wait)
	done chan struct{}
}

func newTap(r *os.File, w io.Writer) *tap {
	setPipeSize(r)
	t := &tap{r: r, w: w, h: sha256.New(), done: make(chan struct{})}
	go t.run()
	return t
}

func (t *tap) run() {
	defer close(t.done)
	defer t.r.Close()
	free := make(chan []byte, tapBuffers)
	var passed chan []byte // to the hasher, in order; nil until output is large
	var hashed chan struct{}
	defer func() {
		if passed != nil {
			close(passed)
			<-hashed
		}
	}()
	made := 0
	for {
		var buf []byte
		select {
		case buf = <-free:
		default:
			if made < tapBuffers {
				made++
				buf = make([]byte, tapBuffer)
			} else {
				buf = <-free
			}
		}
		n, err := t.r.Read(buf)
		if n > 0 {
			m, werr := t.w.Write(buf[:n])
			// The digest covers exactly the bytes passed on.
			t.n += int64(m)
			if passed == nil && t.n > hashAside {
				passed, hashed = make(chan []byte, tapBuffers), make(chan struct{})
				go t.hash(passed, free, hashed)
			}
			if passed != nil {
				passed <- buf[:m]
			} else {
				t.h.Write(buf[:m]) // small output: no hand-over to wait for
				free <- buf
			}
			if werr == nil && m < n {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				// The reader of the wrapper's output went away. Closing
				// the pipe (deferred) gives the command the same EPIPE or
				// SIGPIPE it would have had without the wrapper.
				t.werr = werr
				return
			}
		} else {
			free <- buf
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.cut = true
			}
			return // io.EOF: every writer closed the pipe
		}
	}
}

// hashAside is the output size past which hashing moves to its own
// goroutine. Below it the tap hashes as it goes: a short output is hashed
// in microseconds, less than handing it to another goroutine costs.
const hashAside = 1 << 20

// hash digests the buffers in the order they were passed on and returns
// each to the free list.
func (t *tap) hash(passed <-chan []byte, free chan<- []byte, done chan<- struct{}) {
	for b := range passed {
		t.h.Write(b)
		free <- b[:cap(b)]
	}
	close(done)
}

// wait waits until the tap has reached the pipe's end, or until deadline:
// then it stops reading (a process the command left running still holds
// the pipe) and waits for the tap to finish its last write.
func (t *tap) wait(deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
		t.r.SetReadDeadline(time.Now())
		<-t.done
	}
}

func (t *tap) sum() string { return hex.EncodeToString(t.h.Sum(nil)) }
