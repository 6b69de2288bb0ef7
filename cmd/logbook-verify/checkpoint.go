package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/rotation"
	"github.com/logbook-project/logbook/internal/verdict"
)

// checkpointFlags are a server's signed checkpoints and the keys pinned
// for them (docs/checkpoint.md).
type checkpointFlags struct {
	files, keys cli.List
	rotations   string
}

func (c *checkpointFlags) register(fs *flag.FlagSet) {
	fs.Var(&c.files, "checkpoint", "signed checkpoint `FILE` from a logbook server (repeatable; needs --checkpoint-key; default with --checkpoint-key: the sidecar ID.record.checkpoint beside the record when present): CHECKPOINT_INVALID, CHECKPOINT_MISMATCH, TRUNCATED; level server when one counts every step")
	fs.StringVar(&c.rotations, "key-rotations", "", "a server's key-rotation notes `FILE` (DATA/key-rotations, or its /v1/key rotations): the keys a --checkpoint-key or --pubkey handed over to are trusted too (docs/key-rotation.md)")
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

// extend adds to pinned and ks the keys that the rotation notes (if any)
// hand over to, followed from the keys already trusted for each.
func (c *checkpointFlags) extend(pinned []ed25519.PublicKey, ks []checkpoint.Key) ([]ed25519.PublicKey, []checkpoint.Key, error) {
	if c.rotations == "" {
		return pinned, ks, nil
	}
	data, err := readSmall(c.rotations, 1<<20)
	if err != nil {
		return nil, nil, err
	}
	if len(pinned) == 0 && len(ks) == 0 {
		return nil, nil, errors.New("--key-rotations needs a --pubkey or --checkpoint-key to follow them from")
	}
	if len(pinned) > 0 {
		more, err := rotation.Extend(data, pinned)
		if err != nil {
			return nil, nil, fmt.Errorf("--key-rotations %s: %v", c.rotations, err)
		}
		pinned = append(pinned, more...)
	}
	if len(ks) > 0 {
		var pubs []ed25519.PublicKey
		for _, k := range ks {
			pubs = append(pubs, k.Pub)
		}
		more, err := rotation.Extend(data, pubs)
		if err != nil {
			return nil, nil, fmt.Errorf("--key-rotations %s: %v", c.rotations, err)
		}
		for _, k := range more {
			ks = append(ks, checkpoint.Key{Name: rotation.Origin(data), Pub: k})
		}
	}
	return pinned, ks, nil
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

// sidecarCheckpoint reads the checkpoint a server leaves beside a record
// (ID.record.json -> ID.record.checkpoint), as logbook-review and
// logbook-review --export do when no --checkpoint is given; none there is
// no checkpoint (level local), not an error.
func sidecarCheckpoint(record string) ([][]byte, error) {
	side := strings.TrimSuffix(record, ".json") + ".checkpoint"
	st, err := os.Stat(side)
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil
	}
	text, err := readSmall(side, checkpoint.MaxNote)
	if err != nil {
		return nil, err
	}
	return [][]byte{text}, nil
}
