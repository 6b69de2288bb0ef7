package bigbuf

import (
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// adviseHuge asks for huge pages over the 2 MiB-aligned middle of b. Only
// buffers of several huge pages are worth it; errors are ignored (the
// advice is an optimization, never needed for correctness).
func adviseHuge(b []byte) {
	if len(b) < 4*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end > start {
		off := int(start - p)
		_ = syscall.Madvise(b[off:off+int(end-start)], 14 /* MADV_HUGEPAGE */)
	}
}
