package wrap

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// tapBuffer is the most one read from the command's pipe takes, and the
// amount of output hashed in one piece. With the pipe enlarged to the same
// size (pipeSize, see enlarge), a command writing fast hands over up to a
// mebibyte per system call instead of 64 KiB.
const tapBuffer = 1 << 20

// tapBuffers is how many buffers one tap may fill before the hash catches
// up: once output is large, hashing runs on its own goroutine, beside the
// copying, so a fast command is slowed by the slower of the two, not by
// their sum. Buffers are made as needed: a quiet stream makes one.
const tapBuffers = 4

// hashAside is the output size past which hashing moves to its own
// goroutine. Below it the tap hashes as it goes: a short output is hashed
// in microseconds, less than handing it to another goroutine costs.
const hashAside = 1 << 20

// tap passes one output stream of the command (stdout or stderr) on to the
// wrapper's own, as it comes, hashing and counting what it passes on: a
// command printing gigabytes is never held in memory.
//
// The pipe's read end is left in blocking mode and read with plain read(2)
// calls, outside Go's network poller: a command writing in 4 KiB pieces
// would otherwise cost a park and a wake-up of the reading goroutine per
// piece, which on a small virtual machine costs more than the hashing.
type tap struct {
	fd   int // the read end of the command's pipe
	w    io.Writer
	done chan struct{} // closed when the tap reached the pipe's end or failed

	mu       sync.Mutex // held while a piece is passed on; wait takes it to stop the tap
	h        hash.Hash
	n        int64
	werr     error  // the first write error; the tap stopped reading there
	cut      bool   // stopped before the pipe's end (see wait)
	finished bool   // sum is final
	sum      string // hex SHA-256 of the n bytes passed on, once finished
	buf      []byte // passed on, not yet hashed
	free     chan []byte
	made     int
	passed   chan []byte // to the hasher, in order; nil until output is large
	hashed   chan struct{}
}

func newTap(fd int, w io.Writer) *tap {
	t := &tap{fd: fd, w: w, h: sha256.New(), done: make(chan struct{}), free: make(chan []byte, tapBuffers)}
	go t.run()
	return t
}

func (t *tap) run() {
	defer close(t.done)
	var last time.Time // when the previous read returned
	for {
		t.mu.Lock()
		if t.buf == nil {
			t.buf = t.take()
		}
		space := t.buf[len(t.buf):cap(t.buf)]
		t.mu.Unlock()
		n, err := syscall.Read(t.fd, space)
		if err == syscall.EINTR {
			continue
		}
		t.mu.Lock()
		if t.finished {
			// wait stopped the tap while it was reading: the pipe belongs
			// to a process the command left behind.
			t.mu.Unlock()
			return
		}
		if n > 0 {
			m, werr := t.w.Write(space[:n])
			// The digest covers exactly the bytes passed on.
			t.n += int64(m)
			t.buf = t.buf[:len(t.buf)+m]
			if werr == nil && m < n {
				werr = io.ErrShortWrite
			}
			// The reader of the wrapper's output went away: closing the
			// pipe gives the command the EPIPE or SIGPIPE it would have
			// had without the wrapper.
			t.werr = werr
			if len(t.buf) == cap(t.buf) {
				t.digest()
			}
		}
		if n <= 0 || t.werr != nil {
			// n == 0: every writer closed the pipe; n < 0: a read error,
			// which a pipe does not give.
			t.finish()
			t.mu.Unlock()
			syscall.Close(t.fd)
			return
		}
		t.mu.Unlock()
		// A command writing small pieces back to back (head and cat write
		// 8 KiB at a time) would wake the tap, and be woken by it, once
		// per piece: on a small virtual machine those wake-ups cost more
		// than copying and hashing the bytes. When small reads come less
		// than coalesce apart, the tap lets the pipe fill for coalesce
		// before reading again, so a fast writer hands over up to
		// pipeSize per wake-up. Output is held back at most coalesce; a
		// read after a pause is passed on at once.
		now := time.Now()
		if n < coalesceBelow && now.Sub(last) < coalesce {
			time.Sleep(coalesce)
			now = time.Now()
		}
		last = now
	}
}

// A read smaller than coalesceBelow, less than coalesce after the one
// before, makes the tap wait coalesce before the next (see run).
const (
	coalesce      = time.Millisecond
	coalesceBelow = 256 << 10
)

// take returns an empty buffer: a new one while fewer than tapBuffers
// exist, else one the hasher has finished with.
func (t *tap) take() []byte {
	select {
	case b := <-t.free:
		return b
	default:
	}
	if t.made < tapBuffers {
		t.made++
		return make([]byte, 0, tapBuffer)
	}
	return <-t.free
}

// digest hands the filled buffer to the hash: a whole buffer at a time,
// so a command writing in small pieces costs one hand-over per mebibyte.
func (t *tap) digest() {
	if len(t.buf) == 0 {
		return
	}
	if t.passed == nil && t.n > hashAside {
		t.passed, t.hashed = make(chan []byte, tapBuffers), make(chan struct{})
		go hashAll(t.h, t.passed, t.free, t.hashed)
		t.enlarge()
	}
	if t.passed != nil {
		t.passed <- t.buf
	} else {
		t.h.Write(t.buf) // small output: no hand-over to wait for
		t.free <- t.buf[:0]
	}
	t.buf = nil
}

// enlarge asks for pipeSize on the command's pipe and, when the
// wrapper's own output is a pipe too, on that one: a piece of up to
// tapBuffer then goes over each in one write instead of in 64 KiB turns
// with the reader. Only a stream past hashAside asks, so that quiet
// commands do not spend the user's pipe-buffer allowance
// (/proc/sys/fs/pipe-user-pages-soft).
func (t *tap) enlarge() {
	setPipeSize(t.fd)
	if f, ok := t.w.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { setPipeSize(int(fd)) })
		}
	}
}

// finish hashes what is left and fixes the sum. Called with mu held.
func (t *tap) finish() {
	t.digest()
	if t.passed != nil {
		close(t.passed)
		<-t.hashed
	}
	t.sum, t.finished = hex.EncodeToString(t.h.Sum(nil)), true
}

// hashAll digests the buffers in the order they were passed on and
// returns each to the free list.
func hashAll(h hash.Hash, passed <-chan []byte, free chan<- []byte, done chan<- struct{}) {
	for b := range passed {
		h.Write(b)
		free <- b[:0]
	}
	close(done)
}

// wait waits until the tap has reached the pipe's end, or until deadline:
// then it stops the tap where it is (a process the command left running
// still holds the pipe) and fixes the sum over what was passed on. A tap
// stopped in a read is left to it; the process ends soon after.
func (t *tap) wait(deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
		t.mu.Lock()
		if !t.finished {
			t.cut = true
			t.finish()
		}
		t.mu.Unlock()
	}
}

// pipe returns a pipe for one output stream: the read end a blocking
// descriptor for a tap, the write end a file for the command.
func pipe() (r int, w *os.File, err error) {
	var p [2]int
	if err := pipe2(&p); err != nil {
		return -1, nil, os.NewSyscallError("pipe", err)
	}
	return p[0], os.NewFile(uintptr(p[1]), "|"), nil
}
