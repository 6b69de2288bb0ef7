package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBadFlagAtTerminal: typed by hand (stdin a terminal), an unknown flag
// exits 2 like every command; inside a hook (a pipe) it exits 0, and both
// say so on stderr.
func TestBadFlagAtTerminal(t *testing.T) {
	tty := openTTY(t)
	getenv := func(k string) string {
		if k == "LOGBOOK_DIR" {
			return t.TempDir()
		}
		return ""
	}
	var stderr bytes.Buffer
	if code := run([]string{"--bogus"}, tty, io.Discard, &stderr, getenv); code != 2 || !bytes.Contains(stderr.Bytes(), []byte("-bogus")) {
		t.Errorf("at a terminal: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	r, w, _ := os.Pipe()
	w.Close()
	defer r.Close()
	if code := run([]string{"--bogus"}, r, io.Discard, &stderr, getenv); code != 0 || !bytes.Contains(stderr.Bytes(), []byte("-bogus")) {
		t.Errorf("in a hook: exit %d, stderr %q", code, stderr.String())
	}
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	if code := run([]string{"--bogus"}, devnull, io.Discard, &stderr, getenv); code != 0 {
		t.Errorf("stdin /dev/null (a hook with no stdin): exit %d", code)
	}
}

// openTTY opens a pseudo-terminal's follower side, as a user's stdin.
func openTTY(t *testing.T) *os.File {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestByHandAtTerminal: record-step typed at a terminal with no payload
// says what it is for and exits 2, without waiting for input or making
// .logbook/ in the directory it was typed in.
func TestByHandAtTerminal(t *testing.T) {
	tty := openTTY(t)
	dir := t.TempDir()
	t.Chdir(dir)
	var stderr bytes.Buffer
	if code := run(nil, tty, io.Discard, &stderr, func(string) string { return "" }); code != 2 || !bytes.Contains(stderr.Bytes(), []byte("not by hand")) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(".logbook"); err == nil {
		t.Error("record-step typed by hand made .logbook/")
	}
}
