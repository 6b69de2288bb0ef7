package seal

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/seal/core"
)

// SealFile is Seal for a session of any length (core.SealFile): the
// record is written to a temporary file in tmpDir, whose path it returns
// once the full verifier has accepted the file.
func SealFile(j *journal.Journal, priv ed25519.PrivateKey, opt Options, tmpDir string) (Result, string, error) {
	opt.CheckFile = checkFile
	return core.SealFile(j, priv, opt, tmpDir)
}

// checkFile verifies the record at path as logbook-verify does: read
// under the record size limit, then the full verifier. The sealer holds
// nothing else by then, so the seal's peak is the verifier's.
func checkFile(path string) error {
	rec, err := readlimit.Large(path, readlimit.Record)
	if err != nil {
		return err
	}
	return record.SelfCheck(rec)
}
