package server

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Events lost on the way to the server are named in the session's own
// record, by what the server itself sees (issue 32):
//
//   - record-step --server numbers each event of a session it forwards
//     (X-Logbook-Seq: 1, 2, …, sent or not). A number the server never
//     receives is a hole: at the seal the server appends a LostEvent note
//     naming how many (reason "sequenceHole"). Parallel hooks arrive out of
//     order, so a hole is counted only at the seal, not when a later
//     number overtakes it.
//   - A number the server has seen already (or one below the highest it
//     saw and not missing) means the hook's count went back: it lives in
//     the agent's folder, which the agent can delete or edit. The server
//     appends a SeqResetEvent note at once: from then on, loss before that
//     event cannot be ruled out.
//   - An event the server refused after reading its session (the journal
//     could not be written: a full disk; its fsync failed) is counted, and
//     a LostEvent note (reason "refused") names how many with the next
//     event it records, or at the seal.
//
// internal/gaps counts the notes; logbook-verify reports them as gaps.
const (
	LostEvent     = "logbook.lost"
	SeqResetEvent = "logbook.sequenceReset"
)

// seqHeader is the hook's number of the event in its session.
const seqHeader = "X-Logbook-Seq"

// maxSeq bounds a number, and maxHoles the numbers kept one by one: a
// jump beyond it (a count file edited to a huge size) is counted, not
// listed.
const (
	maxSeq   = 1 << 40
	maxHoles = 1 << 16
)

// seqOf reads X-Logbook-Seq: 0 when absent.
func seqOf(r *http.Request) (int64, error) {
	h := r.Header.Get(seqHeader)
	if h == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(h, 10, 64)
	if err != nil || n < 1 || n > maxSeq || h[0] == '+' || h[0] == '0' {
		return 0, fmt.Errorf("%s: want a number from 1 to %d", seqHeader, int64(maxSeq))
	}
	return n, nil
}

// seqState is what the server knows of a session's numbers and of the
// events it refused. It is kept in memory while the session is open, and
// in DIR/ID.hookseq while it is not (written when the session is closed,
// removed when it is read: a server killed meanwhile finds none).
type seqState struct {
	loaded  bool
	max     int64              // the highest number seen (0: none)
	holes   map[int64]struct{} // numbers below max not seen, not yet noted
	noted   map[int64]struct{} // numbers a note counted, not seen since
	bulk    int64              // holes counted, not listed (a jump over maxHoles)
	refused int64              // events refused since the last note
	// reset: a refused event's number went back (from, to), to be noted
	// with the next recorded event; zero when none.
	reset [2]int64
	// unknown: the session had steps before this process saw a number of
	// it, and no DIR/ID.hookseq said what was seen (a server killed with
	// the session open): the first number seen cannot be checked.
	unknown bool
}

func seqPath(dir, id string) string { return filepath.Join(dir, id+".hookseq") }

// load reads DIR/ID.hookseq once, and removes it. hadSteps: the journal
// held steps before this process recorded any.
func (q *seqState) load(dir, id string, hadSteps bool) {
	if q.loaded {
		return
	}
	q.loaded = true
	b, err := os.ReadFile(seqPath(dir, id))
	if err != nil {
		q.unknown = hadSteps
		return
	}
	os.Remove(seqPath(dir, id))
	q.parse(b)
}

// parse reads what encode wrote.
func (q *seqState) parse(b []byte) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	for _, l := range lines {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "max":
			q.max = num(v)
		case "bulk":
			q.bulk = num(v)
		case "refused":
			q.refused = num(v)
		case "reset":
			a, b, _ := strings.Cut(v, " ")
			q.reset = [2]int64{num(a), num(b)}
		case "hole", "noted":
			m := &q.holes
			if k == "noted" {
				m = &q.noted
			}
			if *m == nil {
				*m = map[int64]struct{}{}
			}
			(*m)[num(v)] = struct{}{}
		}
	}
}

// save writes DIR/ID.hookseq when there is anything to keep.
func (q *seqState) save(dir, id string) error {
	b := q.encode()
	if b == nil {
		return nil
	}
	return os.WriteFile(seqPath(dir, id), b, 0o600)
}

// encode is the state as DIR/ID.hookseq (and a replica's database row)
// keeps it; nil when there is nothing to keep.
func (q *seqState) encode() []byte {
	if !q.loaded || q.max == 0 && q.refused == 0 && q.reset[1] == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "max %d\nbulk %d\nrefused %d\n", q.max, q.bulk, q.refused)
	if q.reset[1] != 0 {
		fmt.Fprintf(&b, "reset %d %d\n", q.reset[0], q.reset[1])
	}
	for _, k := range slices.Sorted(mapKeys(q.holes)) {
		fmt.Fprintf(&b, "hole %d\n", k)
	}
	for _, k := range slices.Sorted(mapKeys(q.noted)) {
		fmt.Fprintf(&b, "noted %d\n", k)
	}
	return []byte(b.String())
}

func mapKeys(m map[int64]struct{}) func(func(int64) bool) {
	return func(yield func(int64) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// see takes the number n of an event the server recorded (or refused: it
// is counted there). It returns a reset note's numbers (from, to) when n
// goes back, else ok.
func (q *seqState) see(n int64) (from int64, reset bool) {
	if n <= 0 {
		return 0, false
	}
	if q.unknown {
		// Whatever was seen before is not known: the hook's earlier
		// numbers cannot be checked, only the ones from here on.
		q.unknown = false
		if n > 1 {
			q.max = n
			return 0, true
		}
	}
	switch {
	case n > q.max:
		gap := n - q.max - 1
		if gap > maxHoles-int64(len(q.holes)) {
			q.bulk += gap
		} else {
			for k := q.max + 1; k < n; k++ {
				if q.holes == nil {
					q.holes = map[int64]struct{}{}
				}
				q.holes[k] = struct{}{}
			}
		}
		q.max = n
		return 0, false
	case has(q.holes, n):
		delete(q.holes, n) // came late: parallel hooks
		return 0, false
	case has(q.noted, n):
		delete(q.noted, n) // counted at a seal, came after it
		return 0, false
	}
	// Seen already: the count went back. What the hook numbers from
	// here is a new count.
	from = q.max
	q.max, q.holes, q.noted, q.bulk = n, nil, nil, 0
	return from, true
}

func has(m map[int64]struct{}, k int64) bool { _, ok := m[k]; return ok }

// takeHoles returns the holes not yet noted, and marks them noted.
func (q *seqState) takeHoles() int64 {
	n := q.bulk + int64(len(q.holes))
	q.bulk = 0
	for k := range q.holes {
		if q.noted == nil {
			q.noted = map[int64]struct{}{}
		}
		if len(q.noted) < maxHoles {
			q.noted[k] = struct{}{}
		}
	}
	q.holes = nil
	return n
}

// lostNote names n events the server never recorded, and why.
func lostNote(n int64, reason, at string) chain.Step {
	var why string
	switch reason {
	case "refused":
		why = "the server refused them (it could not write them: a full disk, a failed write or fsync)"
	default:
		why = "the hook numbered them and they never reached the server"
	}
	return chain.Step{
		At:      at,
		Kind:    "note",
		Summary: fmt.Sprintf("%d event(s) of this session are not recorded: %s", n, why),
		Data: strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str(LostEvent)},
			strictjson.Member{Key: "count", Value: strictjson.Int(n)},
			strictjson.Member{Key: "reason", Value: strictjson.Str(reason)},
		),
	}
}

// resetNote says the hook's count went back: events before this point
// may be missing, and the server cannot count them.
func resetNote(from, to int64, at string) chain.Step {
	summary := fmt.Sprintf("the hook's event count went back from %d to %d (its file, in the agent's folder, was deleted or edited): events before this one may be missing and cannot be counted", from, to)
	if from == 0 {
		summary = fmt.Sprintf("the hook's event count is at %d and what the server saw of it before is not known (the server stopped with the session open): events before this one may be missing and cannot be counted", to)
	}
	return chain.Step{
		At:      at,
		Kind:    "note",
		Summary: summary,
		Data: strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str(SeqResetEvent)},
			strictjson.Member{Key: "from", Value: strictjson.Int(from)},
			strictjson.Member{Key: "to", Value: strictjson.Int(to)},
		),
	}
}
