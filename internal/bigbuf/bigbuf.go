// Package bigbuf allocates the few large buffers a verifier needs (the
// record file, the signed bytes) so that first touching them is cheap.
//
// On Linux with transparent huge pages in "madvise" mode, every 4 KiB page
// of a fresh buffer costs a page fault: measured on this project's CI
// machine, touching 43 MB took 180 ms, more than the rest of verifying a
// 100,000-step record. Asking for huge pages (MADV_HUGEPAGE) cut that to
// 15-110 ms. Elsewhere Alloc is a plain make.
package bigbuf

import (
	"io"
	"os"
)

// Alloc returns a zero-length slice with capacity n.
func Alloc(n int) []byte {
	b := make([]byte, n)
	adviseHuge(b)
	return b[:0]
}

// ReadFile reads a whole file into a buffer from Alloc. A pipe or other
// file whose size is not known up front (st.Size() is 0 for /dev/stdin or
// <(…)) is read to its end from the same descriptor.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return io.ReadAll(f)
	}
	return ReadAll(f, st.Size())
}

// ReadAll reads f to its end into a buffer from Alloc sized for size
// bytes; it grows the buffer if the file turns out longer.
func ReadAll(f io.Reader, size int64) ([]byte, error) {
	return ReadInto(f, Alloc(int(size)+512))
}

// ReadInto reads f to its end, appending to b and growing it only when the
// input turns out longer than cap(b): a caller that reads the same file
// again and again can hand back its last buffer.
func ReadInto(f io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than it said: make room
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadStream reads r to its end. A regular file is read into one buffer
// sized from its length. Anything else (a hook's stdin is a pipe) is read
// in chunks that are copied once into a buffer of the exact length: the
// peak is about twice the input, where growing one buffer by append leaves
// every outgrown copy behind for the collector, about four times it.
func ReadStream(r io.Reader) ([]byte, error) {
	b, _, err := ReadStreamLimit(r, -1)
	return b, err
}

// ReadStreamLimit is ReadStream that stops once more than limit bytes
// (limit < 0: no limit) have come, and then reports over without making
// the final copy: a stream refused for its length (/dev/zero, a runaway
// pipe) never costs more than about the limit in memory, where copying
// it whole first doubled that.
func ReadStreamLimit(r io.Reader, limit int64) (b []byte, over bool, err error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if limit >= 0 && st.Size() > limit {
				return nil, true, nil
			}
			var from io.Reader = f
			if limit >= 0 {
				from = io.LimitReader(f, limit+1) // a file growing as it is read
			}
			b, err := ReadAll(from, st.Size())
			return b, err == nil && limit >= 0 && int64(len(b)) > limit, err
		}
	}
	if limit >= 0 {
		r = io.LimitReader(r, limit+1) // the limit and one byte: enough to know
	}
	var chunks [][]byte
	total, size := int64(0), 64<<10
	for {
		c := make([]byte, size)
		n, err := io.ReadFull(r, c)
		chunks = append(chunks, c[:n])
		total += int64(n)
		if limit >= 0 && total > limit {
			return nil, true, nil
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		size = min(size*2, 4<<20)
	}
	if len(chunks) == 1 {
		return chunks[0], false, nil
	}
	out := Alloc(int(total))
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	return out, false, nil
}
