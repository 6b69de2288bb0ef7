package recorder

import (
	"fmt"
	"os"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/format"
)

// Self describes the running program as session.recorder (spec §4) of the
// sessions whose in-progress file it creates: Name, the version from its
// build information, and the SHA-256 of its own executable. It is a
// journal.RecorderSource, so the executable is hashed only when a header
// line is written — once per session, never per event — and at most once
// per process.
//
// record-step and logbook-seal --hook pass one to Record (Options.Self); a program that
// appends through the journal itself (logbook-wrap) sets it as
// journal.Header.Describe.
type Self struct {
	Name string
	// Warn, when not nil, is told why the executable could not be
	// described; the header then names no recorder, and the step is still
	// recorded (a hook must not fail over this).
	Warn func(msg string)

	done bool
	r    *format.Recorder
}

// Recorder implements journal.RecorderSource.
func (s *Self) Recorder() *format.Recorder {
	if s.done {
		return s.r
	}
	s.done = true
	exe, err := os.Executable()
	if err == nil {
		s.r, err = Describe(s.Name, exe)
	}
	if err != nil && s.Warn != nil {
		s.Warn(fmt.Sprintf("session.recorder left out: cannot hash this program's executable: %v", err))
	}
	return s.r
}

// Describe returns a recorder named name whose executable is the file at
// path: its SHA-256 and this build's Version.
func Describe(name, path string) (*format.Recorder, error) {
	sum, key, ok := cachedSum(path)
	if !ok {
		var err error
		if sum, err = digest.File(path); err != nil {
			return nil, err
		}
		storeSum(key, sum)
	}
	return &format.Recorder{Name: name, Version: Version(), SHA256: sum}, nil
}

// Version is this build's version: the main module's version when it was
// built from a tagged module, else "devel", followed by "+" and the VCS
// revision (12 digits, "-dirty" when modified) when the build recorded one.
// The SHA-256 in session.recorder pins the binary whatever this says.
func Version() string {
	v, rev, modified, _ := cli.Build()
	if rev != "" {
		v += "+" + rev[:min(12, len(rev))]
		if modified {
			v += "-dirty"
		}
	}
	return v
}
