package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// writeRecord writes a record to out. An existing file there is a record
// someone may rely on: without force it is refused (a wrong key once
// replaced a good record with a failing one); with force it is first
// renamed to out.prev-N (the first free N) and kept, whose name is
// returned. The hook seals the same session again as it resumes, so it
// always forces.
func writeRecord(out string, data []byte, force bool) (kept string, err error) {
	// readlimit.Small: a FIFO planted at out must be refused, not read
	// (os.ReadFile would wait for a writer forever, inside a hook).
	old, err := readlimit.Small(out, readlimit.Record)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err // names out already
	case string(old) == string(data):
		return "", nil // sealing again with nothing new: the same bytes
	case !force:
		return "", fmt.Errorf("%s exists: refusing to replace a record (pass --force to replace it, keeping the previous one as %s.prev-N, or --out FILE to write elsewhere)", out, out)
	default:
		for n := 1; ; n++ {
			kept = out + ".prev-" + strconv.Itoa(n)
			if _, err := os.Lstat(kept); errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
		if err := durable.WriteFile(kept, old); err != nil {
			return "", fmt.Errorf("keep the previous record as %s: %w", kept, err)
		}
	}
	if err := durable.WriteFile(out, data); err != nil {
		return kept, fmt.Errorf("write %s: %w", out, err)
	}
	return kept, nil
}

// hookArgs reports whether the command line asks for hook mode, looked
// for before the flags are known to parse.
func hookArgs(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--hook", "-hook", "--hook=true", "-hook=true":
			return true
		}
	}
	return false
}
