package durable

import (
	"io/fs"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// renameNoReplace is renameat2(RENAME_NOREPLACE); where the file system
// or kernel lacks it (EINVAL, ENOSYS), an Lstat just before a rename.
//
// The system call is made here, not through golang.org/x/sys/unix: that
// package's start-up (an allocation and the first touch of its pages) ran
// in every record-step process, which links durable but never renames
// (docs/performance.md, "record-step"). The syscall package has
// no SYS_RENAMEAT2 on amd64, so the numbers are below, per architecture;
// TestRenameat2Number holds them to x/sys/unix's.
func renameNoReplace(old, new string) error {
	nr := renameat2Number(runtime.GOARCH)
	if nr == 0 {
		return checkThenRename(old, new)
	}
	err := renameat2(nr, old, new, renameNoReplaceFlag)
	switch {
	case err == nil:
		return nil
	case err == syscall.EEXIST:
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	case err == syscall.EINVAL || err == syscall.ENOSYS:
		return checkThenRename(old, new)
	}
	return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
}

const (
	atFDCWD             = -0x64 // AT_FDCWD: paths relative to the working directory
	renameNoReplaceFlag = 0x1   // RENAME_NOREPLACE
)

// renameat2Number is SYS_RENAMEAT2 on Linux for goarch (from
// golang.org/x/sys/unix's zsysnum_linux_*.go), 0 where it is not known:
// then the Lstat-and-rename fallback.
func renameat2Number(goarch string) uintptr {
	switch goarch {
	case "amd64":
		return 316
	case "386":
		return 353
	case "arm":
		return 382
	case "arm64", "loong64", "riscv64":
		return 276
	case "mips", "mipsle":
		return 4351
	case "mips64", "mips64le":
		return 5311
	case "ppc", "ppc64", "ppc64le":
		return 357
	case "s390x":
		return 347
	case "sparc64":
		return 345
	}
	return 0
}

// renameat2 returns the call's errno (a syscall.Errno) or nil.
func renameat2(nr uintptr, old, new string, flags uintptr) error {
	p0, err := syscall.BytePtrFromString(old)
	if err != nil {
		return err
	}
	p1, err := syscall.BytePtrFromString(new)
	if err != nil {
		return err
	}
	dirfd := atFDCWD
	for {
		_, _, e := syscall.Syscall6(nr, uintptr(dirfd), uintptr(unsafe.Pointer(p0)), uintptr(dirfd), uintptr(unsafe.Pointer(p1)), flags, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return e
	}
}
