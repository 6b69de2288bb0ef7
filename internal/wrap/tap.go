package wrap

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
// before, makes the pump wait coalesce before reading again (see run).
const (
	coalesce      = time.Millisecond
	coalesceBelow = 256 << 10
)

// pump passes the command's stdout and stderr on to the wrapper's own as
// they come, hashing and counting what it passes on: a command printing
// gigabytes is never held in memory.
//
// One goroutine serves both pipes with poll(2) and plain read(2) calls on
// blocking descriptors, outside Go's network poller: a command writing in
// 4 KiB pieces would otherwise cost a park and a wake-up of a goroutine
// per piece, which on a small virtual machine costs more than hashing the
// bytes, and it takes one thread for both streams.
type pump struct {
	out, err tapped
	wakeR    int           // stop writes to wakeW to end the pump early
	wakeW    int           //
	cut      bool          // stopped before both pipes' ends (see stop)
	done     chan struct{} // closed when the pump has finished
}

// tapped is one stream: its pipe, where it goes, and what passed.
type tapped struct {
	fd     int // the read end of the command's pipe; -1 once closed
	w      io.Writer
	h      hash.Hash
	n      int64
	werr   error  // the first write error; the stream stopped there
	sum    string // hex SHA-256 of the n bytes passed on, once the pump finished
	buf    []byte // passed on, not yet hashed
	free   chan []byte
	made   int
	passed chan []byte // to the hasher, in order; nil until output is large
	hashed chan struct{}
}

// newPump makes the pump for the two pipes (read ends outFD and errFD);
// start sets it going, discard releases it unstarted.
func newPump(outFD, errFD int, stdout, stderr io.Writer) (*pump, error) {
	var wake [2]int
	if err := pipe2(&wake); err != nil {
		return nil, os.NewSyscallError("pipe", err)
	}
	p := &pump{wakeR: wake[0], wakeW: wake[1], done: make(chan struct{})}
	for _, s := range []struct {
		t  *tapped
		fd int
		w  io.Writer
	}{{&p.out, outFD, stdout}, {&p.err, errFD, stderr}} {
		*s.t = tapped{fd: s.fd, w: s.w, h: sha256.New(), free: make(chan []byte, tapBuffers)}
	}
	return p, nil
}

func (p *pump) start() { go p.run() }

func (p *pump) discard() {
	for _, fd := range []int{p.out.fd, p.err.fd, p.wakeR, p.wakeW} {
		unix.Close(fd)
	}
}

func (p *pump) run() {
	defer close(p.done)
	defer func() {
		for _, t := range []*tapped{&p.out, &p.err} {
			t.finish()
		}
		unix.Close(p.wakeR)
		unix.Close(p.wakeW)
	}()
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
		if len(ts) == 0 {
			return // both pipes reached their end
		}
		fds = append(fds, unix.PollFd{Fd: int32(p.wakeR), Events: unix.POLLIN})
		if _, err := unix.Poll(fds, -1); err != nil {
			continue // EINTR
		}
		if fds[len(fds)-1].Revents != 0 {
			p.cut = true // stop: a process the command left running holds a pipe
			return
		}
		most := 0
		for i, t := range ts {
			if fds[i].Revents != 0 {
				most = max(most, t.readOnce())
			}
		}
		// A command writing small pieces back to back (head and cat write
		// 8 KiB at a time) would wake the pump, and be woken by it, once
		// per piece. When small reads come less than coalesce apart, the
		// pump lets the pipes fill for coalesce before reading again, so
		// a fast writer hands over up to pipeSize per wake-up. Output is
		// held back at most coalesce; a read after a pause is passed on
		// at once.
		now := time.Now()
		if most < coalesceBelow && now.Sub(last) < coalesce {
			time.Sleep(coalesce)
			now = time.Now()
		}
		last = now
	}
}

// stop ends the pump where it is, without waiting for the pipes' ends.
func (p *pump) stop() { unix.Write(p.wakeW, []byte{0}) }

// wait waits until the pump has reached both pipes' ends, or until
// deadline: then it stops the pump, which fixes the sums over what was
// passed on.
func (p *pump) wait(deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		p.stop()
		<-p.done
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
