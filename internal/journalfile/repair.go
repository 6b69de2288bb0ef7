package journalfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// A torn tail is what a writer that died inside its write(2) leaves: bytes
// after the file's last newline. It is cut, and a note step saying how
// many bytes were cut, with their SHA-256, goes into the chain, so the
// record says so and the cut is never mistaken for tampering.
//
// The writer that cuts may die too, before its note is on disk. So a cut
// is first written down in the session's lock file (ID.lock, which is never
// replaced), one line "LENGTH SHA256" per cut, and only then made; the next
// write that lands puts a note for every cut listed there into the chain
// and empties the list. However many writers die in a row, every cut gets
// its note.

// Repair cuts a torn tail, if any, and appends a note for every cut not
// yet noted (this one, and any left by a writer that died after cutting),
// stamped with the last step's time (now when there is none). It returns
// how many notes it appended. The sealer calls it before reading.
func (j *Journal) Repair(now string) (int, error) {
	line, _, _, err := j.tail() // the last complete line: a cut leaves it as it is
	if err != nil {
		return 0, err
	}
	at := now
	if line != nil {
		if v, err := strictjson.Parse(line, strictjson.Options{MaxDepth: format.MaxDepth}); err == nil {
			if s, ok := v.GetString("at"); ok {
				at = s
			}
		}
	}
	// write cuts the torn tail and notes every pending cut. The header is
	// only written when even it was torn; then the session id is all that
	// is known of it.
	_, notes, err := j.write(Header{Session: j.Session}, nil, at, nil)
	return notes, err
}

// cut writes the torn bytes' length and digest to the lock file, then
// truncates the in-progress file to end.
func (j *Journal) cut(end, size int64) error {
	torn := make([]byte, size-end)
	if _, err := j.f.ReadAt(torn, end); err != nil {
		return err
	}
	sum := sha256.Sum256(torn)
	entry := fmt.Sprintf("%d %s\n", len(torn), hex.EncodeToString(sum[:]))
	list, err := j.readLock()
	if err != nil {
		return err
	}
	// A list cut short by a death inside its own write ends without a
	// newline: that entry is dropped (its torn tail was not cut, so it is
	// found again now).
	keep := list[:bytes.LastIndexByte(list, '\n')+1]
	// A writer that died between listing and cutting listed this already.
	if !bytes.HasSuffix(keep, []byte(entry)) {
		if int64(len(keep)) != int64(len(list)) {
			if err := j.lock.Truncate(int64(len(keep))); err != nil {
				return err
			}
		}
		if _, err := j.lock.WriteAt([]byte(entry), int64(len(keep))); err != nil {
			return fmt.Errorf("list the cut in %s: %w", j.lock.Name(), err)
		}
	}
	if err := j.f.Truncate(end); err != nil {
		return fmt.Errorf("cut torn tail: %w", err)
	}
	return nil
}

func (j *Journal) readLock() ([]byte, error) {
	st, err := j.lock.Stat()
	if err != nil || st.Size() == 0 {
		return nil, err
	}
	b := make([]byte, st.Size())
	if _, err := j.lock.ReadAt(b, 0); err != nil {
		return nil, err
	}
	return b, nil
}

// pendingCuts returns a note for every cut listed in the lock file and not
// yet in the file, in the order they were made (their At is left for the
// caller), and whether the list has entries at all. last is the file's
// last complete line: notes are written in list order at the start of a
// write, so when a write died after its first notes were on disk, the last
// line is the note of a listed cut, and it and every cut listed before it
// are noted already.
func (j *Journal) pendingCuts(last []byte) (notes []chain.Step, listed bool, err error) {
	list, err := j.readLock()
	if err != nil || len(list) == 0 {
		return nil, false, err
	}
	type cut struct {
		length int
		digest string
	}
	var cuts []cut
	for _, l := range bytes.Split(list[:bytes.LastIndexByte(list, '\n')+1], []byte("\n")) {
		n, digest, ok := bytes.Cut(l, []byte(" "))
		length, err := strconv.Atoi(string(n))
		if !ok || err != nil || len(digest) != 64 {
			continue // the empty string after the last newline
		}
		cuts = append(cuts, cut{length, string(digest)})
	}
	if d, n, ok := tornNote(last); ok {
		for i := len(cuts) - 1; i >= 0; i-- {
			if cuts[i] == (cut{n, d}) {
				cuts = cuts[i+1:]
				break
			}
		}
	}
	for _, c := range cuts {
		length, digest := c.length, c.digest
		notes = append(notes, chain.Step{
			Kind:    "note",
			Summary: fmt.Sprintf("torn tail: %d bytes of an interrupted append were cut from the in-progress file", length),
			Data: strictjson.Obj(
				strictjson.Member{Key: "event", Value: strictjson.Str("logbook.tornTail")},
				strictjson.Member{Key: "tornBytes", Value: strictjson.Int(int64(length))},
			),
			Inputs: []string{digest},
		})
	}
	return notes, true, nil
}

// tornNote reads a torn-tail note's digest and length from a step line.
func tornNote(line []byte) (digest string, length int, ok bool) {
	if !bytes.Contains(line, []byte(`"logbook.tornTail"`)) {
		return "", 0, false
	}
	v, err := strictjson.Parse(line, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		return "", 0, false
	}
	d := v.Get("data")
	if ev, _ := d.GetString("event"); ev != "logbook.tornTail" {
		return "", 0, false
	}
	n := d.Get("tornBytes")
	in := v.Get("inputsSha256")
	if n == nil || in == nil || len(in.Items) != 1 {
		return "", 0, false
	}
	length, err = strconv.Atoi(n.Str)
	return in.Items[0].Str, length, err == nil
}

// clearCuts empties the list once its notes are on disk.
func (j *Journal) clearCuts() error { return j.lock.Truncate(0) }
