package decider

import (
	"encoding/binary"
	"fmt"
)

// The wire format: one message each way per connection.
//
//	"LBPD1" KIND uint32-be(len(BODY)) BODY
//
// KIND is 'Q' (a hook to decide and record), 'A' (its answer), 'S' (a
// status request) or 'T' (the status). A string is uint32-be(len) and the
// bytes; a count is uint32-be. Bodies:
//
//	Q: key cwd count(args) args… count(env) env… stdin(1 byte: 0 or 1) payload
//	A: key exit(uint32, 0–255) stdout stderr
//	S: (empty)
//	T: key pid(uint64) served(uint64) cpuNanoseconds(uint64)
//
// Anything else, anything cut short or followed by more bytes, is a
// named refusal (ErrGarbage), never a panic.
const magic = "LBPD1"

const (
	kindRequest      = 'Q'
	kindAnswer       = 'A'
	kindStatus       = 'S'
	kindStatusAnswer = 'T'
)

// Limits of one message. A payload larger than MaxPayload is not sent: the
// call goes to the exec'd hook, which has no such limit.
const (
	MaxPayload = 64 << 20
	maxBody    = MaxPayload + 4<<20
	maxArgs    = 1024
	maxEnv     = 8192
	headerLen  = len(magic) + 1 + 4
	// HeaderLen is the length of a message's header (BodyLen reads it).
	HeaderLen = headerLen
)

// Request is one hook call as record-step received it.
type Request struct {
	Key   string   // the decider's key the caller computed (KeyOf)
	Cwd   string   // the caller's working directory
	Args  []string // record-step's arguments, as logbook-policy hook takes them
	Env   []string // the caller's environment, KEY=VALUE
	Stdin bool     // the payload came on stdin (else it is the last argument)
	// Payload is stdin's bytes (empty when Stdin is false).
	Payload []byte
}

// Answer is what the hook did: its exit status and output, to be given
// to the harness as they are.
type Answer struct {
	Key            string // the decider's own key: must be the caller's
	Exit           int
	Stdout, Stderr []byte
}

// Status is what a decider says of itself (for tests and benchmarks).
type Status struct {
	Key    string
	Pid    uint64
	Served uint64 // requests answered
	CPU    uint64 // user+system CPU of the whole process so far, nanoseconds
}

type enc []byte

func (e enc) u32(n int) enc      { return binary.BigEndian.AppendUint32(e, uint32(n)) }
func (e enc) str(s string) enc   { return append(e.u32(len(s)), s...) }
func (e enc) bytes(b []byte) enc { return append(e.u32(len(b)), b...) }

func frame(kind byte, body []byte) []byte {
	out := make([]byte, 0, headerLen+len(body))
	out = append(out, magic...)
	out = append(out, kind)
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	return append(out, body...)
}

// Marshal is the request's message.
func (r *Request) Marshal() []byte {
	n := 64 + len(r.Key) + len(r.Cwd) + len(r.Payload)
	for _, a := range r.Args {
		n += 4 + len(a)
	}
	for _, a := range r.Env {
		n += 4 + len(a)
	}
	e := make(enc, 0, n).str(r.Key).str(r.Cwd).u32(len(r.Args))
	for _, a := range r.Args {
		e = e.str(a)
	}
	e = e.u32(len(r.Env))
	for _, v := range r.Env {
		e = e.str(v)
	}
	if r.Stdin {
		e = append(e, 1)
	} else {
		e = append(e, 0)
	}
	return frame(kindRequest, e.bytes(r.Payload))
}

// Marshal is the answer's message.
func (a *Answer) Marshal() []byte {
	return frame(kindAnswer, enc(nil).str(a.Key).u32(a.Exit).bytes(a.Stdout).bytes(a.Stderr))
}

// StatusRequest is the message asking a decider for its Status.
func StatusRequest() []byte { return frame(kindStatus, nil) }

// Marshal is the status's message.
func (s *Status) Marshal() []byte {
	e := enc(nil).str(s.Key)
	e = binary.BigEndian.AppendUint64(e, s.Pid)
	e = binary.BigEndian.AppendUint64(e, s.Served)
	e = binary.BigEndian.AppendUint64(e, s.CPU)
	return frame(kindStatusAnswer, e)
}

// dec reads a body; the first error sticks.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = garbage("%s cut short or too long", what)
	}
}

func (d *dec) u32(what string) int {
	if d.err != nil || len(d.b) < 4 {
		d.fail(what)
		return 0
	}
	n := binary.BigEndian.Uint32(d.b)
	d.b = d.b[4:]
	return int(n)
}

func (d *dec) u64(what string) uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail(what)
		return 0
	}
	n := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return n
}

func (d *dec) raw(what string) []byte {
	n := d.u32(what)
	if d.err != nil || n > len(d.b) {
		d.fail(what)
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *dec) str(what string) string { return string(d.raw(what)) }

func (d *dec) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = garbage("%d bytes after the message", len(d.b))
	}
	return d.err
}

// split checks a message's header and returns its kind and body.
func split(msg []byte) (byte, []byte, error) {
	if len(msg) < headerLen || string(msg[:len(magic)]) != magic {
		return 0, nil, garbage("not a decider message (%d bytes, no %s header)", len(msg), magic)
	}
	kind := msg[len(magic)]
	n := binary.BigEndian.Uint32(msg[len(magic)+1:])
	if n > maxBody {
		return 0, nil, garbage("a message of %d bytes, over the %d-byte limit", n, maxBody)
	}
	if uint64(len(msg)-headerLen) != uint64(n) {
		return 0, nil, garbage("a message of %d bytes says %d", len(msg)-headerLen, n)
	}
	return kind, msg[headerLen:], nil
}

// BodyLen reads a header's body length (for a reader that must know how
// much to read); it checks the magic and the limit.
func BodyLen(h []byte) (int, error) {
	if len(h) < headerLen || string(h[:len(magic)]) != magic {
		return 0, garbage("not a decider message (no %s header)", magic)
	}
	n := binary.BigEndian.Uint32(h[len(magic)+1:])
	if n > maxBody {
		return 0, garbage("a message of %d bytes, over the %d-byte limit", n, maxBody)
	}
	return int(n), nil
}

// ParseRequest reads a request message; a status request gives ok false
// and no error.
func ParseRequest(msg []byte) (r Request, status bool, err error) {
	kind, body, err := split(msg)
	if err != nil {
		return r, false, err
	}
	switch kind {
	case kindStatus:
		if len(body) != 0 {
			return r, false, garbage("a status request with a body")
		}
		return r, true, nil
	case kindRequest:
	default:
		return r, false, garbage("message kind %q, want a request", kind)
	}
	d := dec{b: body}
	r.Key, r.Cwd = d.str("key"), d.str("cwd")
	n := d.u32("argument count")
	if n > maxArgs || n > len(d.b)/4 {
		d.fail("arguments")
	}
	for i := 0; i < n && d.err == nil; i++ {
		r.Args = append(r.Args, d.str("argument"))
	}
	m := d.u32("environment count")
	if m > maxEnv || m > len(d.b)/4 {
		d.fail("environment")
	}
	for i := 0; i < m && d.err == nil; i++ {
		r.Env = append(r.Env, d.str("environment variable"))
	}
	if d.err == nil {
		if len(d.b) < 1 || d.b[0] > 1 {
			d.fail("stdin flag")
		} else {
			r.Stdin = d.b[0] == 1
			d.b = d.b[1:]
		}
	}
	r.Payload = d.raw("payload")
	if err := d.end(); err != nil {
		return Request{}, false, err
	}
	if r.Key == "" {
		return Request{}, false, garbage("a request with no key")
	}
	return r, false, nil
}

// ParseAnswer reads an answer message.
func ParseAnswer(msg []byte) (Answer, error) {
	var a Answer
	kind, body, err := split(msg)
	if err != nil {
		return a, err
	}
	if kind != kindAnswer {
		return a, garbage("message kind %q, want an answer", kind)
	}
	d := dec{b: body}
	a.Key = d.str("key")
	a.Exit = d.u32("exit status")
	a.Stdout, a.Stderr = d.raw("stdout"), d.raw("stderr")
	if err := d.end(); err != nil {
		return Answer{}, err
	}
	if a.Exit > 255 {
		return Answer{}, garbage("exit status %d", a.Exit)
	}
	return a, nil
}

// ParseStatus reads a status message.
func ParseStatus(msg []byte) (Status, error) {
	var s Status
	kind, body, err := split(msg)
	if err != nil {
		return s, err
	}
	if kind != kindStatusAnswer {
		return s, garbage("message kind %q, want a status", kind)
	}
	d := dec{b: body}
	s.Key = d.str("key")
	s.Pid, s.Served, s.CPU = d.u64("pid"), d.u64("served"), d.u64("cpu")
	return s, d.end()
}

func garbage(format string, a ...any) *Error {
	return &Error{Code: ErrGarbage, Detail: fmt.Sprintf(format, a...)}
}
