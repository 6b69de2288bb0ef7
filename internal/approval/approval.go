// Package approval is the approvers' queue of logbook-server: a call the
// organization policy holds (decision hold) waits here until a person
// other than the developer who asked approves or denies that exact call,
// or its time runs out (docs/approvals.md). An approval is bound to the
// call's input digests, used once, and expires; the queue holds no
// record, the server writes the request and the answer as gate steps.
// Time is an argument: the queue reads no clock.
package approval

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// Request is one held call, as an approver sees it.
type Request struct {
	ID        string    `json:"id"`
	Tenant    string    `json:"tenant,omitempty"` // the fleet's tenant of the session ("": no fleet)
	Session   string    `json:"session"`
	Harness   string    `json:"harness,omitempty"`
	Tool      string    `json:"tool"`
	ToolUseID string    `json:"toolUseId,omitempty"`
	Inputs    []string  `json:"inputsSha256"` // the call's input digests: what an approval is bound to
	Summary   string    `json:"summary"`      // the call's recorded (redacted) summary
	Rule      string    `json:"rule,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Requester string    `json:"requester,omitempty"` // who asked, when the server knew ("": unknown)
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
}

// Decision is what became of a held call.
type Decision struct {
	Outcome  string // orgpolicy.Approved, Refused or Expired
	Approver string // who decided; "" when it expired
	Reason   string // the approver's words, if any
	At       time.Time
}

// The refusals of Decide, each a named error the server maps to a code.
var (
	ErrUnknown = errors.New("no such held call is waiting: it was decided, it expired, or it was never asked for")
	ErrExpired = errors.New("the held call's approval time ran out: the call was denied")
	ErrSelf    = errors.New("the developer who asked cannot approve their own call: another approver must")
	ErrInput   = errors.New("the approval names other input digests than the held call: an approval is bound to the exact call")
	ErrNoName  = errors.New("an approval must name its approver")
)

type entry struct {
	req     Request
	decided *Decision     // nil until decided
	done    chan struct{} // closed when decided
}

// Queue is the held calls waiting for an approver. The zero value is not
// usable: New.
type Queue struct {
	mu      sync.Mutex
	pending map[string]*entry
}

// New returns an empty queue.
func New() *Queue { return &Queue{pending: map[string]*entry{}} }

// NewID is a fresh approval id: 128 random bits as hex.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Open puts a held call in the queue. The caller then waits until the
// returned channel is closed (decided) or its time is up, and calls Close
// either way.
func (q *Queue) Open(req Request) <-chan struct{} {
	e := &entry{req: req, done: make(chan struct{})}
	q.mu.Lock()
	q.pending[req.ID] = e
	q.mu.Unlock()
	return e.done
}

// Close takes the call out of the queue at now: when nobody decided it,
// it expired. A decision given before Close is returned as it was (an
// approval that won the race with the timeout counts).
func (q *Queue) Close(id string, now time.Time) Decision {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pending[id]
	delete(q.pending, id)
	if e == nil || e.decided == nil {
		return Decision{Outcome: orgpolicy.Expired, At: now}
	}
	return *e.decided
}

// Decide approves (or denies) the held call id for approver at now.
// inputs are the digests the approver was shown: they must be the call's.
// A call is decided once; a decision after it expired, by the developer
// who asked, or for other inputs is refused and changes nothing.
func (q *Queue) Decide(id, approver string, approve bool, inputs []string, reason string, now time.Time) (Request, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pending[id]
	if e == nil || e.decided != nil {
		return Request{}, ErrUnknown
	}
	switch {
	case approver == "":
		return e.req, ErrNoName
	case !now.Before(e.req.Expires):
		return e.req, ErrExpired
	case e.req.Requester != "" && approver == e.req.Requester:
		return e.req, ErrSelf
	case !slices.Equal(inputs, e.req.Inputs):
		return e.req, ErrInput
	}
	out := orgpolicy.Refused
	if approve {
		out = orgpolicy.Approved
	}
	e.decided = &Decision{Outcome: out, Approver: approver, Reason: reason, At: now}
	close(e.done)
	return e.req, nil
}

// List is the held calls waiting, oldest first.
func (q *Queue) List() []Request {
	q.mu.Lock()
	out := make([]Request, 0, len(q.pending))
	for _, e := range q.pending {
		if e.decided == nil {
			out = append(out, e.req)
		}
	}
	q.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Get is one waiting held call.
func (q *Queue) Get(id string) (Request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e := q.pending[id]; e != nil && e.decided == nil {
		return e.req, true
	}
	return Request{}, false
}
