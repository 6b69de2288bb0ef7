package logbook

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
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
	Record     []byte   // the record file's bytes (nil from SealFile, which wrote them to a file)
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
// never sealed. The record is verified before it is returned. Seal holds
// the journal, the record and the check's copy at once, several times the
// journal: SealFile gives the same bytes without holding them.
func Seal(dir, session string, key ed25519.PrivateKey, opt SealOptions) (*Sealed, error) {
	var sealed *Sealed
	err := withJournal(dir, session, opt, func(j *journalfile.Journal, so seal.Options) error {
		res, err := seal.Seal(j, key, so)
		if err == nil {
			sealed = &Sealed{Record: res.Record, Steps: res.Steps, Unfinished: res.Unfinished, TornCut: res.TornBytes}
		}
		return err
	})
	return sealed, err
}

// SealFile is Seal for a session of any length: the record is never held
// in memory (Sealed.Record is nil), so sealing takes about the memory of
// verifying the record, not several times the journal. The record is
// written to a new temporary file in out's directory, fsynced, and checked
// there by the full verifier; place then moves it to out, while the
// journal is still locked. A nil place renames it over out and fsyncs the
// directory: a reader sees the old file or the new one, never a part of
// one. The temporary file is gone when SealFile returns, whatever
// happened, and place is not called unless the record verified. The bytes
// are Seal's for the same journal and options.
func SealFile(dir, session string, key ed25519.PrivateKey, out string, opt SealOptions, place func(tmp, out string) error) (*Sealed, error) {
	if d := filepath.Dir(out); missing(d) {
		return nil, fmt.Errorf("the directory %s does not exist (create it first: mkdir -p %s)", d, d)
	}
	if place == nil {
		place = func(tmp, out string) error { return durable.Place(tmp, out, 0o644) }
	}
	var sealed *Sealed
	err := withJournal(dir, session, opt, func(j *journalfile.Journal, so seal.Options) error {
		res, tmp, err := seal.SealFile(j, key, so, filepath.Dir(out))
		if err != nil {
			return err
		}
		defer os.Remove(tmp) // nothing left behind, placed or not
		if err := place(tmp, out); err != nil {
			return err
		}
		sealed = &Sealed{Steps: res.Steps, Unfinished: res.Unfinished, TornCut: res.TornBytes}
		return nil
	})
	return sealed, err
}

// withJournal opens and locks session's journal in dir and calls seal
// with it and the sealer's options made from opt.
func withJournal(dir, session string, opt SealOptions, do func(*journalfile.Journal, seal.Options) error) error {
	if err := journalfile.ValidSessionID(session); err != nil {
		return err
	}
	j, err := journalfile.Open(dir, session)
	if err != nil {
		return err
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
		return err
	}
	cwd, _ := os.Getwd()
	so := seal.Options{Goal: opt.Goal, Now: instant.Format(now), Cwd: cwd, Certificates: opt.Certificates, Timestamp: opt.Timestamp, Redactor: red}
	if !opt.EndedAt.IsZero() {
		so.EndedAt = instant.Format(opt.EndedAt)
	}
	return do(j, so)
}

func missing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
