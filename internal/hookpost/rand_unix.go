//go:build unix

package hookpost

import (
	"fmt"
	"syscall"
)

// readRandom fills b from /dev/urandom, read with system calls:
// crypto/rand would link math/big, and golang.org/x/sys/unix's getrandom
// its package start-up, into every hook.
func readRandom(b []byte) error {
	fd, err := syscall.Open("/dev/urandom", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open /dev/urandom: %w", err)
	}
	defer syscall.Close(fd)
	for got := 0; got < len(b); {
		var n int
		if err := retry(func() (err error) { n, err = syscall.Read(fd, b[got:]); return }); err != nil || n <= 0 {
			return fmt.Errorf("read /dev/urandom: %v", err)
		}
		got += n
	}
	return nil
}
