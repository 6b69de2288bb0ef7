// Package wal is the server's write-ahead log: one file, shared by every
// session, that holds each append to a session's journal (the file's
// name, the offset the bytes went to, the bytes), so that the group
// commit fsyncs that one file per batch instead of each journal the
// batch wrote. The journals are written as before and fsynced later, in
// the background (Rotate): once a segment's journals are on disk, the
// segment goes. At start, Replay writes what the remaining segments hold
// into the journals a power loss cut short, then removes them.
//
// Files, in DIR/wal/ (DIR the server's data directory):
//
//	NNNNNNNNNNNNNNNNNNNN.wal   a segment: entries, oldest first
//	lock                       flock target: held by the process whose Log is open
//
// An entry checks itself (its length and CRC-32C): the first entry of a
// segment that does not check is a torn tail, never acknowledged (an
// answer waits for the fsync of the segment that holds its entry), and
// it and everything after it are ignored. An entry that checks but whose
// fields no Log writes (a name that is not a session journal's) is
// ErrCorrupt: replay stops before writing anything.
package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/logbook-project/logbook/internal/journalfile"
)

// Entry is one change to a file of the data directory.
type Entry struct {
	Kind Kind
	Name string // the file's name in the data directory (ValidName)
	Off  int64  // Write: where Data was written
	Data []byte // Write: the bytes
}

// Kind says what an Entry did.
type Kind byte

const (
	// Write: Data was written at Off (the file's end: journals are only
	// appended to).
	Write Kind = 1
	// Remove: the file was removed (a session deleted under retention),
	// so that replay does not make it again from older entries.
	Remove Kind = 2
)

// The encoding, little-endian:
//
//	u32 n            the payload's length
//	u32 crc          CRC-32C (Castagnoli) of the payload
//	payload (n bytes):
//	  u8  kind
//	  u16 len(name), name
//	  Write: u64 off, data (the rest)
const (
	headerLen = 8
	// maxPayload bounds an entry: a journal append is at most one
	// payload of the recorder's limit (32 MiB) and its notes.
	maxPayload = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendHead appends an entry's header and the payload up to its data to
// b, for data of n bytes; the CRC covers data too (crc is taken over
// data by the caller: put).
func appendHead(b []byte, e *Entry, n int) []byte {
	fixed := 1 + 2 + len(e.Name)
	if e.Kind == Write {
		fixed += 8
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(fixed+n))
	b = binary.LittleEndian.AppendUint32(b, 0) // the CRC, put by seal
	b = append(b, byte(e.Kind))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(e.Name)))
	b = append(b, e.Name...)
	if e.Kind == Write {
		b = binary.LittleEndian.AppendUint64(b, uint64(e.Off))
	}
	return b
}

// seal puts the CRC of the payload (head's after its header, then data)
// into head.
func seal(head, data []byte) {
	c := crc32.Update(0, castagnoli, head[headerLen:])
	c = crc32.Update(c, castagnoli, data)
	binary.LittleEndian.PutUint32(head[4:8], c)
}

// Encode returns e's bytes in a segment.
func Encode(e Entry) ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	b := appendHead(nil, &e, len(e.Data))
	b = append(b, e.Data...)
	seal(b[:len(b)-len(e.Data)], e.Data)
	return b, nil
}

func (e *Entry) check() error {
	if err := ValidName(e.Name); err != nil {
		return err
	}
	switch e.Kind {
	case Write:
		if e.Off < 0 || len(e.Data) > maxPayload-1-2-len(e.Name)-8 {
			return fmt.Errorf("wal: write of %d bytes at %d: out of range", len(e.Data), e.Off)
		}
	case Remove:
		if len(e.Data) != 0 || e.Off != 0 {
			return errors.New("wal: a remove has no offset or data")
		}
	default:
		return fmt.Errorf("wal: entry kind %d", e.Kind)
	}
	return nil
}

// ValidName refuses a name that is not a session journal's in the data
// directory (ID.steps.jsonl, journalfile.Path's, ID a valid session
// id): the log holds journal appends and removals only, and a segment's
// names are checked before any path is made of them, so that replay
// never writes or removes another file of the data directory (the
// server's key, a record, the index) nor one outside it.
func ValidName(name string) error {
	id, ok := strings.CutSuffix(name, journalfile.Suffix)
	if !ok {
		return fmt.Errorf("wal: file name %q: not a journal's", name)
	}
	if err := journalfile.ValidSessionID(id); err != nil {
		return fmt.Errorf("wal: file name %q: %w", name, err)
	}
	return nil
}

// ErrCorrupt is Parse's error for an entry whose length and CRC check
// but whose fields do not (an unknown kind, a name that is not a
// journal's, an offset out of range): no Log writes one, so it is not a
// torn tail but a segment made by something else, and replay stops
// rather than take it, or what follows it, for nothing.
var ErrCorrupt = errors.New("wal: an entry that checks holds fields no log writes")

// Parse reads the entries of a segment's bytes in order, calling each
// for every one that checks, and returns how many bytes they take: the
// first entry cut short or whose CRC does not match ends the segment, a
// torn tail that was never acknowledged. An entry that checks but holds
// fields out of range is ErrCorrupt. Each's Data is a view into b. Parse
// returns each's error, if any, and never panics on any bytes.
func Parse(b []byte, each func(Entry) error) (int64, error) {
	var off int64
	for {
		e, n, err := parseOne(b[off:])
		if err != nil {
			return off, fmt.Errorf("at byte %d: %w", off, err)
		}
		if n == 0 {
			return off, nil
		}
		if err := each(e); err != nil {
			return off, err
		}
		off += int64(n)
	}
}

// parseOne reads the entry at the start of b: n 0 when there is no
// whole entry whose CRC checks, ErrCorrupt when one does and its fields
// do not.
func parseOne(b []byte) (e Entry, n int, err error) {
	if len(b) < headerLen {
		return e, 0, nil
	}
	size := binary.LittleEndian.Uint32(b[0:4])
	if size > maxPayload || uint64(size) > uint64(len(b)-headerLen) {
		return e, 0, nil
	}
	p := b[headerLen : headerLen+int(size)]
	// An empty payload's CRC is 0: zeros (pages a power loss took from
	// the segment's tail) check, and are a torn tail, not ErrCorrupt.
	if len(p) < 3 || crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[4:8]) {
		return e, 0, nil
	}
	e.Kind = Kind(p[0])
	nl := int(binary.LittleEndian.Uint16(p[1:3]))
	if len(p) < 3+nl {
		return e, 0, ErrCorrupt
	}
	e.Name = string(p[3 : 3+nl])
	rest := p[3+nl:]
	switch e.Kind {
	case Write:
		if len(rest) < 8 {
			return e, 0, ErrCorrupt
		}
		off := binary.LittleEndian.Uint64(rest[:8])
		if off > 1<<62 {
			return e, 0, fmt.Errorf("%w: offset %d", ErrCorrupt, off)
		}
		e.Off, e.Data = int64(off), rest[8:]
	case Remove:
		if len(rest) != 0 {
			return e, 0, ErrCorrupt
		}
	default:
		return e, 0, fmt.Errorf("%w: kind %d", ErrCorrupt, e.Kind)
	}
	if err := ValidName(e.Name); err != nil {
		return e, 0, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return e, headerLen + int(size), nil
}
