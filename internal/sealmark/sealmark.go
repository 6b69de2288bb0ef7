// Package sealmark keeps the mark a seal leaves in the session directory
// when the record is written elsewhere (logbook-seal --out FILE): a file
// DIR/ID.sealed naming where the record went and how many steps it
// sealed, so that logbook-review --list shows the session as sealed
// rather than in progress. A seal to the usual DIR/ID.record.json needs no
// mark and removes a stale one.
package sealmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// Suffix ends a mark's file name: DIR/ID.sealed.
const Suffix = ".sealed"

// Mark is what the file holds. It is a pointer, not evidence: the record
// it names is verified wherever it is read.
type Mark struct {
	Session string `json:"session"`
	Record  string `json:"record"` // the record's path, absolute
	Steps   int    `json:"steps"`  // steps sealed
	At      string `json:"at"`     // when it was sealed
}

// Path is the mark file of a session.
func Path(dir, session string) string { return filepath.Join(dir, session+Suffix) }

// Write records that session's record was written to record (made
// absolute), atomically.
func Write(dir string, m Mark) error {
	abs, err := filepath.Abs(m.Record)
	if err != nil {
		return err
	}
	m.Record = abs
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(Path(dir, m.Session), append(data, '\n'))
}

// Clear removes a session's mark; none is fine.
func Clear(dir, session string) error {
	if err := os.Remove(Path(dir, session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Read reads a mark file.
func Read(path string) (Mark, error) {
	var m Mark
	data, err := readlimit.Small(path, readlimit.Key)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	if m.Record == "" {
		return m, fmt.Errorf("%s: names no record", path)
	}
	return m, nil
}
