package commitcheck

import (
	"fmt"
	"slices"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitbind"
)

// maxTrailer bounds the Logbook-Record trailers of one commit as git
// prints them (their values, comma-separated): a session id is at most
// 128 bytes, and a commit is made in a few sessions at most.
const maxTrailer = 4 << 10

// trailer is what a commit's Logbook-Record trailers claim: the sessions
// it was made in, or why they cannot be read.
type trailer struct {
	sessions []string
	err      error
}

func parseTrailer(values string, cut bool) trailer {
	if cut {
		return trailer{err: fmt.Errorf("its %s trailers are over %d bytes: not read", gitbind.TrailerKey, maxTrailer)}
	}
	s, err := gitbind.ParseTrailer(values)
	return trailer{sessions: s, err: err}
}

// judge weighs the trailer's claim against the commit's line: the
// sessions it names must be the sessions whose records name the commit.
// A trailer is only a claim (anyone can type one): it never makes a
// commit recorded, it can only refuse one.
func (t trailer) judge(l Line, n *note, ix *index) Line {
	if l.Status == Refused || l.Status == Unknown {
		return l
	}
	if t.err != nil {
		return refuse(l, format.BindingMalformed, t.err.Error())
	}
	var made []string // the sessions the commit is bound to
	if l.Status == Recorded {
		made = append(made, l.Session)
	}
	if n != nil {
		for _, b := range n.bindings {
			made = append(made, b.Session)
		}
	}
	for _, s := range t.sessions {
		if slices.Contains(made, s) {
			continue
		}
		r := ix.bySession[s]
		switch {
		case r == nil && l.Status == Recorded:
			return refuse(l, format.BindingForged, fmt.Sprintf("its %s trailer names session %s, and the commit was made in session %s (record %s)", gitbind.TrailerKey, s, l.Session, l.RecordID))
		case r == nil:
			return refuse(l, format.RecordMissing, fmt.Sprintf("its %s trailer names session %s, whose record the records folder does not hold", gitbind.TrailerKey, s))
		default:
			return refuse(l, format.CommitNotInRecord, fmt.Sprintf("its %s trailer names session %s, whose record %s names neither this commit nor its patch id (amended, squashed, or the trailer copied)", gitbind.TrailerKey, s, r.out.Result.RecordID))
		}
	}
	return l
}
