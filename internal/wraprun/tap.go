package wraprun

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// tapBuffer is the most one read from a command's pipe takes, and the
// amount of output hashed in one piece. With the pipe enlarged to the same
// size (pipeSize, see enlarge), a command writing fast hands over up to a
// mebibyte per system call instead of 64 KiB.
const tapBuffer = 1 << 20

// tapBuffers is how many buffers one stream may fill before its hash
// catches up: once output is large, hashing runs on its own goroutine,
// beside the copying, so a fast command is slowed by the slower of the
// two, not by their sum. Buffers are made as needed: a quiet stream makes
// one.
const tapBuffers = 4

// hashAside is the output size past which a stream's hashing moves to its
// own goroutine. Below it the pump hashes as it goes: a short output is
// hashed in microseconds, less than handing it to another goroutine costs.
const hashAside = 1 << 20

// A read smaller than coalesceBelow, less than coalesce after the one
// before, makes the pump wait up to coalesce before reading again (see
// run).
const (
	coalesce      = time.Millisecond
	coalesceBelow = 256 << 10
)

// pump passes the command's stdout and stderr on to the wrapper's own as
// they come, hashing and counting what it passes on: a command printing
// gigabytes is never held in memory.
//
// The calling goroutine serves both pipes and the command's end with
// poll(2), and reads with plain read(2) calls on blocking descriptors,
// outside Go's network poller. A command writing in 4 KiB pieces would
// otherwise cost a park and a wake-up of a goroutine per piece, which on a
// small virtual machine costs more than hashing the bytes; and when the
// command ends, no other goroutine has to be scheduled before the wrapper
// goes on.
type pump struct {
	out, err tapped
	cut      bool // stopped before both pipes' ends (see run)
}

// tapped is one stream: its pipe, where it goes, and what passed.
type tapped struct {
	fd     int // the read end of the command's pipe; -1 once closed
	w      io.Writer
	h      hash.Hash
	n      int64
	werr   error  // the first write error; the stream stopped there
	sum    string // hex SHA-256 of the n bytes passed on, once run returned
	buf    []byte // passed on, not yet hashed
	free   chan []byte
	made   int
	passed chan []byte // to the hasher, in order; nil until output is large
	hashed chan struct{}
}

func newPump(outFD, errFD int, stdout, stderr io.Writer) *pump {
	p := &pump{}
	p.out = tapped{fd: outFD, w: stdout, h: sha256.New(), free: make(chan []byte, tapBuffers)}
	p.err = tapped{fd: errFD, w: stderr, h: sha256.New(), free: make(chan []byte, tapBuffers)}
	return p
}

// close releases the pipes of a pump that never ran.
func (p *pump) close() {
	unix.Close(p.out.fd)
	unix.Close(p.err.fd)
}

// run passes output on until both pipes reach their end and exitFD (which
// becomes readable when the command ends) has fired. It calls ended at the
// command's end. A process the command started may keep a pipe open after
// the command ended: grace later, run stops anyway and sets cut.
func (p *pump) run(exitFD int, grace time.Duration, ended func()) {
	defer func() {
		p.out.finish()
		p.err.finish()
	}()
	var deadline time.Time
	var last time.Time // when the previous poll round ended
	fds := make([]unix.PollFd, 0, 3)
	var ts []*tapped
	for {
		fds, ts = fds[:0], ts[:0]
		for _, t := range []*tapped{&p.out, &p.err} {
			if t.fd >= 0 {
				fds = append(fds, unix.PollFd{Fd: int32(t.fd), Events: unix.POLLIN})
				ts = append(ts, t)
			}
		}
		if exitFD >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(exitFD), Events: unix.POLLIN})
		}
		if len(fds) == 0 {
			return
		}
		timeout := -1
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				p.cut = true
				return
			}
			timeout = int(left/time.Millisecond) + 1
		}
		if n, err := unix.Poll(fds, timeout); err != nil || n == 0 {
			continue // EINTR, or the deadline: checked above
		}
		most := 0
		for i, t := range ts {
			if fds[i].Revents != 0 {
				most = max(most, t.readOnce())
			}
		}
		if exitFD >= 0 && fds[len(ts)].Revents != 0 {
			exitFD = -1
			deadline = time.Now().Add(grace)
			ended()
			continue
		}
		// A command writing small pieces back to back (head and cat write
		// 8 KiB at a time) would wake the pump, and be woken by it, once
		// per piece. When small reads come less than coalesce apart, the
		// pump lets the pipes fill before reading again: for as long as
		// the writer, at the rate it just showed, takes to write
		// coalesceBelow bytes, and at most coalesce. Output is held back
		// at most coalesce; a read after a pause is passed on at once.
		now := time.Now()
		if gap := now.Sub(last); most < coalesceBelow && gap < coalesce {
			pause := coalesce
			if most > 0 {
				pause = min(pause, time.Duration(float64(gap)*coalesceBelow/float64(most)))
			}
			time.Sleep(pause)
			now = time.Now()
		}
		last = now
	}
}

// readOnce reads what the pipe holds (poll said it is readable), passes it
// on and returns how much it read.
func (t *tapped) readOnce() int {
	if t.buf == nil {
		t.buf = t.take()
	}
	space := t.buf[len(t.buf):cap(t.buf)]
	n, err := unix.Read(t.fd, space)
	if err == unix.EINTR || err == unix.EAGAIN {
		return 0
	}
	if n > 0 {
		m, werr := t.w.Write(space[:n])
		// The digest covers exactly the bytes passed on.
		t.n += int64(m)
		t.buf = t.buf[:len(t.buf)+m]
		if werr == nil && m < n {
			werr = io.ErrShortWrite
		}
		t.werr = werr
		if len(t.buf) == cap(t.buf) {
			t.digest()
		}
	}
	if n <= 0 || t.werr != nil {
		// n == 0: every writer closed the pipe. A write error: the reader
		// of the wrapper's output went away, and closing the pipe gives
		// the command the EPIPE or SIGPIPE it would have had without the
		// wrapper.
		unix.Close(t.fd)
		t.fd = -1
	}
	return n
}

// take returns an empty buffer: a new one while fewer than tapBuffers
// exist, else one the hasher has finished with.
func (t *tapped) take() []byte {
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
func (t *tapped) digest() {
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
func (t *tapped) enlarge() {
	setPipeSize(t.fd)
	if f, ok := t.w.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { setPipeSize(int(fd)) })
		}
	}
}

// finish hashes what is left, fixes the sum, and closes the pipe if the
// pump stopped before its end.
func (t *tapped) finish() {
	t.digest()
	if t.passed != nil {
		close(t.passed)
		<-t.hashed
	}
	t.sum = hex.EncodeToString(t.h.Sum(nil))
	if t.fd >= 0 {
		unix.Close(t.fd)
		t.fd = -1
	}
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

// pipe returns a pipe for one output stream: the read end a blocking
// descriptor for the pump, the write end a file for the command.
func pipe() (r int, w *os.File, err error) {
	var p [2]int
	if err := pipe2(&p); err != nil {
		return -1, nil, os.NewSyscallError("pipe", err)
	}
	return p[0], os.NewFile(uintptr(p[1]), "|"), nil
}
