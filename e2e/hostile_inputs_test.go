package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/ostest"
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
	if err := ostest.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	// Exit 2 (a usage error) everywhere but --cassette, which answers as
	// runback's CLI does for a file it cannot read: 1.
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"logbook-verify", []string{"/dev/zero"}, "/dev/zero: not a regular file (a character device)", 2},
		{"logbook-verify", []string{"--bundle", "/dev/zero", "--trust", "../testdata/keys/fixture.key.pub"}, "/dev/zero: not a regular file (a character device)", 2},
		{"logbook-verify", []string{"--cassette", "/dev/zero"}, "/dev/zero: not a regular file (a character device)", 1},
		{"logbook-review", []string{"/dev/zero"}, "/dev/zero: not a regular file (a character device)", 2},
		{"logbook-review", []string{fifo}, "not a regular file (a named pipe)", 2},
	}
	// Linux carries the parent's high-water RSS into a child across
	// exec, so this test process's own would hide the command's in
	// ru_maxrss: GNU time, which forks a fresh child, measures it.
	gnuTime, timeErr := exec.LookPath("/usr/bin/time")
	for _, c := range cases {
		rss := filepath.Join(t.TempDir(), "rss")
		cmd := exec.Command(filepath.Join(bin, c.name), c.args...)
		if timeErr == nil {
			cmd = exec.Command(gnuTime, append([]string{"-f", "%M", "-o", rss, filepath.Join(bin, c.name)}, c.args...)...)
		}
		out, _ := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("%s %s: rc %d %q, want %d and %q", c.name, strings.Join(c.args, " "), code, out, c.code, c.want)
		}
		if timeErr != nil {
			continue
		}
		b, _ := os.ReadFile(rss)
		// The last line: GNU time first notes a non-zero exit status.
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		kb, err := strconv.Atoi(lines[len(lines)-1])
		if err != nil {
			t.Fatalf("/usr/bin/time wrote %q", b)
		}
		t.Logf("%s %s: rc %d, peak RSS %.1f MiB", c.name, strings.Join(c.args, " "), code, float64(kb)/1024)
		// The runtime alone is ~10 MiB; reading the device would be GBs.
		if kb > 64<<10 {
			t.Errorf("%s %s: peak RSS %.1f MiB: the input was read", c.name, strings.Join(c.args, " "), float64(kb)/1024)
		}
	}
	if timeErr != nil {
		t.Log("no /usr/bin/time: peak RSS not measured here (internal/readlimit's TestEndlessPipeRSS measures it)")
	}
}
