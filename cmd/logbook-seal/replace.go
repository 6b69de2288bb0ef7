package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
)

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

// placeRecord returns writeRecord's rules for a record that is a file
// already (logbook.SealFile: tmp, complete and fsynced, beside out), and
// where the previous record was kept: the same bytes at out leave out as
// it is; another record there is refused without force, and with force
// first copied to out.prev-N. Neither file is ever held in memory.
func placeRecord(force bool, kept *string) func(tmp, out string) error {
	return func(tmp, out string) error {
		old, err := openOld(out)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		default:
			defer old.Close()
			same, err := sameFiles(old, tmp)
			if err != nil {
				return err
			}
			if same {
				return nil // sealing again with nothing new: the same bytes
			}
			if !force {
				return fmt.Errorf("%s exists: refusing to replace a record (pass --force to replace it, keeping the previous one as %s.prev-N, or --out FILE to write elsewhere)", out, out)
			}
			k := ""
			for n := 1; ; n++ {
				k = out + ".prev-" + strconv.Itoa(n)
				if _, err := os.Lstat(k); errors.Is(err, fs.ErrNotExist) {
					break
				}
			}
			if _, err := old.Seek(0, io.SeekStart); err != nil {
				return err
			}
			if err := durable.WriteFrom(k, old, 0o644); err != nil {
				return fmt.Errorf("keep the previous record as %s: %w", k, err)
			}
			*kept = k
		}
		if err := durable.Place(tmp, out, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
		return nil
	}
}

// openOld opens the record at out for reading. A FIFO, device or socket
// planted there is refused, not read (opening a FIFO would wait for a
// writer forever, inside a hook), and so is a file over the record limit.
func openOld(out string) (*os.File, error) {
	f, err := os.OpenFile(out, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = readlimit.NotRegular(out, st.Mode())
	}
	if err == nil && st.Size() > readlimit.Record {
		err = &readlimit.TooLargeError{Path: out, Limit: readlimit.Record}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sameFiles reports whether old (read from its start) holds the bytes of
// the file at path, comparing a block at a time.
func sameFiles(old *os.File, path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	a, b := bufio.NewReaderSize(old, 1<<16), bufio.NewReaderSize(f, 1<<16)
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, erra := io.ReadFull(a, ba)
		nb, errb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		endA := erra == io.EOF || erra == io.ErrUnexpectedEOF
		endB := errb == io.EOF || errb == io.ErrUnexpectedEOF
		if erra != nil && !endA {
			return false, erra
		}
		if errb != nil && !endB {
			return false, errb
		}
		if endA || endB {
			return endA && endB, nil
		}
	}
}
