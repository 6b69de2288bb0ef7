package e2e

import (
	"os"
	"syscall"
)

// writeExe writes an executable that this test process will run. The
// file's write descriptor is opened and closed under syscall.ForkLock, so
// no child that a parallel test forks meanwhile inherits it: exec of a
// file some process holds open for writing fails with ETXTBSY ("text file
// busy", golang.org/issue/22315), which CI hit once in
// TestInstallNeedsLogbookInstall.
func writeExe(path string, b []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, b, 0o755)
}
