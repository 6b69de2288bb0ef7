package checkpoint

import "fmt"

// Refusal codes, in the order a verifier reports them (docs/checkpoint.md,
// the addition to spec §7): they come after every code of steps 1-8.
const (
	Invalid   = "CHECKPOINT_INVALID"
	Mismatch  = "CHECKPOINT_MISMATCH"
	Truncated = "TRUNCATED"
)

// Assurance levels: what a verified record proves about its capture.
const (
	LevelLocal  = "local"  // sealed from a file the agent could write
	LevelServer = "server" // every step was checkpointed by a pinned server key
)

// Opened is one checkpoint as Open left it: its statement, or why it is
// invalid.
type Opened struct {
	Checkpoint
	Err error // nil when it verified under a pinned key and parsed
}

// OpenAll opens the notes under the pinned keys, in order, up to and
// including the first that does not open.
// Judge stops at the first note that did not open, so OpenAll does too:
// the notes after it cannot change the verdict, only cost.
func OpenAll(notes [][]byte, keys []Key, weak func([]byte) string) []Opened {
	o := newOpener(keys, weak)
	out := make([]Opened, 0, len(notes))
	for _, n := range notes {
		c, err := o.open(n)
		out = append(out, Opened{c, err})
		if err != nil {
			break
		}
	}
	return out
}

// Indices are the step indices whose hashes Judge needs: size-1 of each
// checkpoint that opened.
func Indices(cps []Opened) []int64 {
	var out []int64
	for _, c := range cps {
		if c.Err == nil {
			out = append(out, c.Size-1)
		}
	}
	return out
}

// Verdict is what the checkpoints say about a record.
type Verdict struct {
	Code, Detail string
	// Level is LevelServer when every checkpoint verified and agreed with
	// the record and one of them counts all of its steps; else LevelLocal.
	Level string
	// Covered are the checkpoints that verified and agreed, in the order
	// given.
	Covered []Checkpoint
}

// Judge checks the opened checkpoints against a record whose signature
// (and policy) verified: its session id, its step count, and the stated
// hashes of its steps at Indices (hashes; a missing index means the record
// has no such step). For each checkpoint in the order given, first failure
// wins: CHECKPOINT_INVALID (it did not verify under a pinned key, or is
// malformed); CHECKPOINT_MISMATCH (another session, or the record has the
// step and its hash is not the tip); TRUNCATED (the record holds fewer
// steps than the checkpoint counted).
func Judge(cps []Opened, session string, stepCount int64, hashes map[int64]string) Verdict {
	v := Verdict{Level: LevelLocal}
	full := false
	for i, c := range cps {
		name := fmt.Sprintf("checkpoint %d", i+1)
		switch {
		case c.Err != nil:
			return Verdict{Code: Invalid, Detail: fmt.Sprintf("%s: %v", name, c.Err)}
		case c.Session != session:
			return Verdict{Code: Mismatch, Detail: fmt.Sprintf("%s is for session %q, the record is session %q", name, c.Session, session)}
		case c.Size <= stepCount && hashes[c.Size-1] != c.Tip:
			return Verdict{Code: Mismatch, Detail: fmt.Sprintf("%s: its tip %s is not steps[%d].hash (%s)", name, c.Tip, c.Size-1, hashes[c.Size-1])}
		case c.Size > stepCount:
			return Verdict{Code: Truncated, Detail: fmt.Sprintf("%s counted %d steps at %s; the record holds %d", name, c.Size, c.Time, stepCount)}
		}
		full = full || c.Size == stepCount
		v.Covered = append(v.Covered, c.Checkpoint)
	}
	if full {
		v.Level = LevelServer
	}
	return v
}
