//go:build linux

package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// TestReviewAtTerminal: at a terminal, logbook-review colours its output
// and, when the text is longer than the screen, hands it to $PAGER with
// LESS=FRX; when it fits, no pager runs. NO_COLOR turns colour off.
func TestReviewAtTerminal(t *testing.T) {
	t.Parallel()
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	writeFile(t, path, rec)
	// The "pager" notes that it ran and with which LESS, then copies.
	pager := filepath.Join(dir, "pager.sh")
	writeFile(t, pager, []byte("#!/bin/sh\necho \"PAGER RAN LESS=$LESS\"\ncat\n"))
	os.Chmod(pager, 0o755)

	run := func(rows uint16, env ...string) string {
		master, slave := openPTY(t)
		defer master.Close()
		if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: 200}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(filepath.Join(bin, "logbook-review"), path)
		cmd.Stdout, cmd.Stderr = slave, slave
		cmd.Env = append(without(os.Environ(), "LESS", "LOGBOOK_PAGER", "PAGER", "NO_COLOR"), append([]string{"PAGER=" + pager}, env...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		var out bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&out, master); close(done) }()
		cmd.Wait()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return out.String()
	}
	long := run(10)
	if !strings.Contains(long, "PAGER RAN LESS=FRX") || !strings.Contains(long, "\x1b[") || !strings.Contains(long, "t-lost") {
		t.Errorf("10 rows: no pager or no colour:\n%q", clip(long, 300))
	}
	short := run(500)
	if strings.Contains(short, "PAGER RAN") || !strings.Contains(short, "t-lost") {
		t.Errorf("500 rows: paged though it fits:\n%q", clip(short, 300))
	}
	plain := run(500, "NO_COLOR=1")
	if none := run(10, "PAGER="); strings.Contains(none, "PAGER RAN") {
		t.Errorf("PAGER empty: paged")
	}
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("NO_COLOR: coloured:\n%q", clip(plain, 300))
	}
}
