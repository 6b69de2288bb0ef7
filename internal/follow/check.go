package follow

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Alarm codes beyond the verifier's: a new line that does not parse, is
// out of order or breaks the chain gets the spec §7 code (format.NotJSON,
// format.StepOutOfOrder, format.ChainBroken); these say what changed in
// bytes already seen.
const (
	HeaderAltered format.Code = "HEADER_ALTERED" // the header line changed after it was seen
	StepAltered   format.Code = "STEP_ALTERED"   // a step seen earlier now has other bytes
	StepRemoved   format.Code = "STEP_REMOVED"   // a step seen earlier is gone
	StepReordered format.Code = "STEP_REORDERED" // steps seen earlier are in another order
	FileReplaced  format.Code = "FILE_REPLACED"  // the path now names another file (rename, copy over)
	FileRemoved   format.Code = "FILE_REMOVED"   // the in-progress file was deleted
)

// Alarm is a tamper finding: the caller stops and exits non-zero.
type Alarm struct {
	Code    format.Code
	Session string
	Detail  string
}

func (a *Alarm) Error() string {
	return fmt.Sprintf("ALARM %s session %s: %s", a.Code, a.Session, a.Detail)
}

// Step is what is printed for a step as it lands.
type Step struct {
	Seq     int
	At      string
	Kind    string
	Summary string
}

// state is what has been seen of one in-progress file: its verified
// prefix (every complete line so far, byte for byte) and where the chain
// stands. A change is checked by reading the whole file again and
// comparing the prefix with memcmp, so an edit anywhere is caught, at the
// cost of a read from the page cache per check.
type state struct {
	session string
	prefix  []byte       // verified complete lines, header first
	lines   [][]byte     // prefix split into lines (without newlines), for diagnosis
	walk    chain.Walker // where the chain stands
	steps   int
	torn    int // length of an incomplete last line already reported
}

// update checks cur, the file's whole content now, against what was seen,
// and verifies every new complete line. It returns the new steps; a torn
// tail (bytes after the last newline) is returned as its length, never
// an alarm: it is an interrupted or in-flight append, which the next
// append or the seal cuts and records.
func (s *state) update(cur []byte) (news []Step, torn int, alarm *Alarm) {
	if len(cur) < len(s.prefix) || !bytes.Equal(cur[:len(s.prefix)], s.prefix) {
		return nil, 0, s.diagnose(cur)
	}
	rest := cur[len(s.prefix):]
	for {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		line := rest[:nl]
		st, a := s.verifyLine(line)
		if a != nil {
			return news, 0, a
		}
		if st != nil {
			news = append(news, *st)
		}
		s.prefix = append(s.prefix, rest[:nl+1]...)
		s.lines = append(s.lines, s.prefix[len(s.prefix)-nl-1:len(s.prefix)-1])
		rest = rest[nl+1:]
	}
	return news, len(rest), nil
}

// verifyLine checks one new complete line: the header when it is the
// first, else the next step in the chain (the checks journal.ReadAll makes
// before a seal).
func (s *state) verifyLine(line []byte) (*Step, *Alarm) {
	bad := func(code format.Code, msg string, a ...any) *Alarm {
		return &Alarm{Code: code, Session: s.session, Detail: fmt.Sprintf(msg, a...)}
	}
	v, err := strictjson.Parse(line, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		return nil, bad(format.NotJSON, "line %d: %v", len(s.lines)+1, err)
	}
	if len(s.lines) == 0 {
		if f, _ := v.GetString("format"); f != format.Journal {
			return nil, bad(format.NotJSON, "line 1 is not an in-progress header")
		}
		return nil, nil
	}
	i := s.steps
	s.walk.B = s.walk.B[:0] // only the links matter here, not the bytes
	if err := s.walk.Step(v); err != nil {
		r := format.AsRefusal(err, format.ChainBroken)
		return nil, bad(r.Code, "line %d: %s", len(s.lines)+1, r.Detail)
	}
	s.steps++
	st := &Step{Seq: i}
	st.At, _ = v.GetString("at")
	st.Kind, _ = v.GetString("kind")
	st.Summary, _ = v.GetString("summary")
	return st, nil
}

// diagnose names what happened to bytes already seen.
func (s *state) diagnose(cur []byte) *Alarm {
	now := bytes.Split(cur, []byte("\n"))
	if len(now) > 0 && len(now[len(now)-1]) == 0 {
		now = now[:len(now)-1]
	}
	seen := map[[32]byte]int{}
	for k, l := range s.lines {
		seen[sha256.Sum256(l)] = k
	}
	for i, old := range s.lines {
		if i < len(now) && bytes.Equal(now[i], old) {
			continue
		}
		a := &Alarm{Session: s.session}
		name := func(k int) string {
			if k == 0 {
				return "the header"
			}
			return fmt.Sprintf("step %d", k-1)
		}
		switch {
		case i >= len(now):
			a.Code, a.Detail = StepRemoved, fmt.Sprintf("the file now ends before %s; %d step(s) seen earlier are gone", name(i), s.steps-max(i-1, 0))
		case i == 0:
			a.Code, a.Detail = HeaderAltered, "the header line changed after it was seen"
		default:
			k, known := seen[sha256.Sum256(now[i])]
			gone := indexOf(now, old) < 0
			switch {
			case gone && known && k > i:
				a.Code, a.Detail = StepRemoved, fmt.Sprintf("%s was removed (its line now holds %s)", name(i), name(k))
			case !gone:
				a.Code, a.Detail = StepReordered, fmt.Sprintf("%s moved from line %d to line %d", name(i), i+1, indexOf(now, old)+1)
			default:
				a.Code, a.Detail = StepAltered, fmt.Sprintf("%s changed after it was seen", name(i))
			}
		}
		return a
	}
	// Every seen line is intact: the prefix differs only in what follows,
	// which cannot happen (the prefix ends with a newline).
	return &Alarm{Code: StepAltered, Session: s.session, Detail: "bytes seen earlier changed"}
}

func indexOf(lines [][]byte, l []byte) int {
	for i, x := range lines {
		if bytes.Equal(x, l) {
			return i
		}
	}
	return -1
}
