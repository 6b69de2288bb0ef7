// Package seal closes a session: it reads the in-progress file under its
// lock, names tool calls that never finished, and signs the record, which
// the full verifier checks before it is returned (package core does the
// work; this package adds the check).
package seal

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/seal/core"
)

// Options are the caller's parts of the session header (spec §8); Check
// is set by Seal.
type Options = core.Options

// Result describes what was sealed.
type Result = core.Result

// Seal builds and signs the record of the locked journal j (core.Seal)
// and verifies it with the full verifier before returning it.
func Seal(j *journalfile.Journal, priv ed25519.PrivateKey, opt Options) (Result, error) {
	opt.Check = record.SelfCheck
	return core.Seal(j, priv, opt)
}
