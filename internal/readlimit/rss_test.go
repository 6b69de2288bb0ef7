//go:build linux

// Linux only: ru_maxrss is in KiB on Linux (bytes on macOS, absent on
// Windows), and the child reads /dev/stdin.

package readlimit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// rssChild, set in a child's environment, makes TestMain read the child's
// stdin (an endless pipe) with Large and exit: 3 when refused as too
// large, as it must be.
const rssChild = "READLIMIT_RSS_CHILD"

const rssLimit = 128 << 20

func TestMain(m *testing.M) {
	if os.Getenv(rssChild) != "" {
		_, err := Large("/dev/stdin", rssLimit)
		if errors.Is(err, ErrTooLarge) {
			os.Exit(3)
		}
		fmt.Fprintln(os.Stderr, "Large:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestEndlessPipeRSS measures a child process's peak resident memory
// (getrusage ru_maxrss) while Large reads an endless pipe (/dev/zero
// through a pipe) under a 128 MiB limit. Before, the stream was read to
// the limit and then copied whole before the length was judged, so the
// peak was twice the limit or more (2.6 GB for a 1 GiB record limit);
// now the refusal comes before the copy and the peak stays within 1.5x
// the bytes read plus the runtime's own ~10 MB. (Linux counts this test
// process's high-water RSS into the child's across exec: a few MB here,
// which only makes the bound stricter.)
func TestEndlessPipeRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 128 MiB")
	}
	t.Parallel()
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer zero.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), rssChild+"=1", "GOGC=100")
	cmd.Stdin = struct{ io.Reader }{zero} // not an *os.File: exec makes a pipe
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("child: %v %s (want exit 3: refused as too large)", err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	peak := ru.Maxrss << 10 // KiB on Linux
	t.Logf("peak RSS %d MiB reading an endless pipe to a %d MiB limit", peak>>20, rssLimit>>20)
	if max := int64(rssLimit)*3/2 + 24<<20; peak > max {
		t.Fatalf("peak RSS %d MiB, over %d MiB (1.5x the bytes read + 24 MiB)", peak>>20, max>>20)
	}
}
