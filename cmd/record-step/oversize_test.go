//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/logbook-project/logbook/journal"
)

// TestOversizePayloadRSS pipes a 160 MiB payload, five times the limit,
// into record-step (a child process) and measures its peak resident
// memory (getrusage ru_maxrss). It must be refused as PAYLOAD_TOO_LARGE
// with the hook's exit contract (0; 2 under --fail-closed, the event
// being unknown) having read about the limit, not the payload: before,
// the whole payload was read first (400 MB in, 787 MB peak).
func TestOversizePayloadRSS(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const size = 5 * journal.MaxPayload
	for _, c := range []struct {
		args []string
		exit int
	}{{nil, 0}, {[]string{"--fail-closed"}, 2}} {
		dir := t.TempDir()
		cmd := exec.Command(exe, append([]string{"--dir", dir}, c.args...)...)
		cmd.Env = append(os.Environ(), asMain+"=1", "GOGC=100")
		head := `{"session_id":"s1","hook_event_name":"PostToolUse","tool_response":"`
		cmd.Stdin = io.MultiReader(strings.NewReader(head), io.LimitReader(repeat('x'), size)) // not an *os.File: a pipe
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != c.exit {
			t.Fatalf("%v: exit %v, want %d; stderr: %s", c.args, cmd.ProcessState, c.exit, stderr.Bytes())
		}
		if !strings.Contains(stderr.String(), "PAYLOAD_TOO_LARGE") {
			t.Fatalf("%v: stderr does not name PAYLOAD_TOO_LARGE: %s", c.args, stderr.Bytes())
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
		t.Logf("%v: peak RSS %d MiB for a %d MiB payload (limit %d MiB)", c.args, peak>>20, size>>20, journal.MaxPayload>>20)
		if max := int64(journal.MaxPayload)*3/2 + 24<<20; peak > max {
			t.Fatalf("%v: peak RSS %d MiB, over %d MiB (1.5× the limit + 24 MiB)", c.args, peak>>20, max>>20)
		}
	}
}

// repeat is an endless reader of one byte.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
