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

// ReadFile reads a whole file into a buffer from Alloc, with extra spare
// capacity at the end.
func ReadFile(path string, extra int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := Alloc(int(st.Size()) + extra + 1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			// The file grew while being read: fall back to a plain read.
			return os.ReadFile(path)
		}
	}
	return b, nil
}
