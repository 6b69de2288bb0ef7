package logbook

import (
	"crypto/ed25519"
	"os"
	"time"

	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/seal"
)

// SealOptions are the parts of a record the caller states.
type SealOptions struct {
	// Goal is what the session was for, as the caller states it; it is
	// never taken from a prompt.
	Goal string
	// EndedAt is the session's end; zero means the last step's time.
	EndedAt time.Time
	// Now is the sealer's clock, for the note that names a torn tail or
	// an unfinished tool call; zero means time.Now.
	Now time.Time
	// Certificates (DER X.509, leaf first) whose leaf certifies the
	// signing key are stored, signed, as the signer's identity.
	Certificates [][]byte
	// Timestamp, when not nil, is given the signature and returns an
	// RFC 3161 time-stamp token over its SHA-256 (DER), which the record
	// keeps beside the signature.
	Timestamp func(signature []byte) ([]byte, error)
}

// Sealed is a sealed record and what sealing it found.
type Sealed struct {
	Record     []byte   // the record file's bytes
	Steps      int      // steps in the record
	Unfinished []string // tool calls that started and never ended, named in a note step
	TornCut    bool     // a torn last line was cut (and noted)
}

// Seal signs session's journal in dir into a record and returns the
// record's bytes (canonical JSON and a newline) in Sealed.Record; writing
// them is the caller's part. It holds the journal's lock while it reads, cuts a torn
// last line (an interrupted append) and notes tool calls that never
// finished in the journal itself, so sealing again later covers the same
// steps. A journal edited behind the recorder's back is an error: it is
// never sealed. The record is verified before it is returned.
func Seal(dir, session string, key ed25519.PrivateKey, opt SealOptions) (*Sealed, error) {
	if err := journal.ValidSessionID(session); err != nil {
		return nil, err
	}
	j, err := journal.Open(dir, session)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	// The clear text sealing adds (goal, agent, cwd) gets the project's
	// redaction patterns (dir/redact.json), like every step did.
	red, err := redact.LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	cwd, _ := os.Getwd()
	so := seal.Options{Goal: opt.Goal, Now: instant.Format(now), Cwd: cwd, Certificates: opt.Certificates, Timestamp: opt.Timestamp, Redactor: red}
	if !opt.EndedAt.IsZero() {
		so.EndedAt = instant.Format(opt.EndedAt)
	}
	res, err := seal.Seal(j, key, so)
	if err != nil {
		return nil, err
	}
	return &Sealed{Record: res.Record, Steps: res.Steps, Unfinished: res.Unfinished, TornCut: res.TornBytes}, nil
}
