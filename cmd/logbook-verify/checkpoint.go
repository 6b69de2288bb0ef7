package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/verdict"
)

// checkpointFlags are a server's signed checkpoints and the keys pinned
// for them (docs/checkpoint.md).
type checkpointFlags struct {
	files, keys pubkeyFlag
}

func (c *checkpointFlags) register(fs *flag.FlagSet) {
	fs.Var(&c.files, "checkpoint", "signed checkpoint `FILE` from a logbook server (repeatable; needs --checkpoint-key): CHECKPOINT_INVALID, CHECKPOINT_MISMATCH, TRUNCATED; level server when one counts every step")
	fs.Var(&c.keys, "checkpoint-key", "pinned server key `PUB` for checkpoints: an SPKI PEM file or a file holding a note verifier key NAME+HASH+KEY (repeatable)")
}

// load reads the files; every problem is a usage or I/O error (exit 2).
func (c *checkpointFlags) load() ([][]byte, []checkpoint.Key, error) {
	if len(c.files) > 0 && len(c.keys) == 0 {
		return nil, nil, errors.New("--checkpoint needs at least one --checkpoint-key to verify it under")
	}
	var ks []checkpoint.Key
	for _, f := range c.keys {
		text, err := readSmall(f, checkpoint.MaxNote)
		if err != nil {
			return nil, nil, err
		}
		if len(text) > checkpoint.MaxNote {
			return nil, nil, fmt.Errorf("--checkpoint-key %s: over %d bytes: not a key", f, checkpoint.MaxNote)
		}
		k, err := verdict.ParseCheckpointKey(f, text)
		if err != nil {
			return nil, nil, err
		}
		ks = append(ks, k)
	}
	var notes [][]byte
	for _, f := range c.files {
		// Over MaxNote is still a verdict, not an I/O error: the file is
		// no checkpoint (Open refuses it as too large).
		text, err := readSmall(f, checkpoint.MaxNote)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, text)
	}
	return notes, ks, nil
}

// readSmall reads at most limit+1 bytes of a file: a file that never ends
// (/dev/zero, a device) or a huge one costs no more than that.
func readSmall(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("read %s: is a directory", name)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}
