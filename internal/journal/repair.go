package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Repair cuts a torn tail (bytes after the last newline, left by a writer
// that died inside its write) and returns a note step that records what was
// cut: its length and SHA-256. It returns nil when the file ends cleanly.
// The caller sets the note's At and appends it, so the record says so.
func (j *Journal) Repair() (*chain.Step, error) {
	_, end, size, err := j.tail()
	if err != nil || end == size {
		return nil, err
	}
	return j.cut(end, size)
}

// cut truncates the file to end and returns the note describing the
// size-end bytes it removed.
func (j *Journal) cut(end, size int64) (*chain.Step, error) {
	torn := make([]byte, size-end)
	if _, err := j.f.ReadAt(torn, end); err != nil {
		return nil, err
	}
	if err := j.f.Truncate(end); err != nil {
		return nil, fmt.Errorf("cut torn tail: %w", err)
	}
	sum := sha256.Sum256(torn)
	digest := hex.EncodeToString(sum[:])
	return &chain.Step{
		Kind:    "note",
		Summary: fmt.Sprintf("torn tail: %d bytes of an interrupted append were cut from the in-progress file", len(torn)),
		Data: strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str("logbook.tornTail")},
			strictjson.Member{Key: "tornBytes", Value: strictjson.Int(int64(len(torn)))},
		),
		Inputs: []string{digest},
	}, nil
}
