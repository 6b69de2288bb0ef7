package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestEndlessInputsRefused: a device where a record, bundle or cassette is
// expected is refused at once, unread, by the commands themselves, and
// each one's peak resident memory is measured (getrusage): before, the
// verifier read /dev/zero to its 1 GiB limit (2.6 GB peak, 43 s) and
// logbook-review said "no such file".
func TestEndlessInputsRefused(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	fifo := filepath.Join(t.TempDir(), "planted.record.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"logbook-verify", []string{"/dev/zero"}, "/dev/zero: not a regular file (a character device)"},
		{"logbook-verify", []string{"--bundle", "/dev/zero"}, "/dev/zero: not a regular file (a character device)"},
		{"logbook-verify", []string{"--cassette", "/dev/zero"}, "/dev/zero: not a regular file (a character device)"},
		{"logbook-review", []string{"/dev/zero"}, "/dev/zero: not a regular file (a character device)"},
		{"logbook-review", []string{fifo}, "not a regular file (a named pipe)"},
	}
	for _, c := range cases {
		// Linux carries the parent's high-water RSS into a child across
		// fork and exec, so a child's ru_maxrss includes this test
		// process's: each run is compared with --version run just before.
		base := exec.Command(filepath.Join(bin, c.name), "--version")
		base.Run()
		cmd := exec.Command(filepath.Join(bin, c.name), c.args...)
		out, _ := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		peak, floor := maxRSS(cmd), maxRSS(base)
		t.Logf("%s %s: rc %d, peak RSS %.1f MiB (--version: %.1f MiB)", c.name, strings.Join(c.args, " "), code, peak, floor)
		if code != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%s %s: rc %d %q, want 2 and %q", c.name, strings.Join(c.args, " "), code, out, c.want)
		}
		// Reading even a quarter of the 1 GiB limit would pass this.
		if peak-floor > 256 {
			t.Errorf("%s %s: peak RSS %.1f MiB, %.1f over --version: the input was read", c.name, strings.Join(c.args, " "), peak, peak-floor)
		}
	}
}
