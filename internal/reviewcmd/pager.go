package reviewcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"

	"github.com/logbook-project/logbook/internal/shellrun"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// termSize is the terminal's width and height; 0, 0 when unknown.
func termSize(w io.Writer) (int, int) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, 0
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0, 0
	}
	return cols, rows
}

// pagerCommand is the pager to run, as git chooses one: $LOGBOOK_PAGER,
// else $PAGER, else less (none on Windows); "" or "cat" mean none. less gets LESS=FRX when
// LESS is unset, so it quits when the text fits one screen, passes colours
// through and leaves the text on the screen.
func pagerCommand(getenv func(string) string) string {
	for _, k := range []string{"LOGBOOK_PAGER", "PAGER"} {
		if v, ok := lookup(getenv, k); ok {
			if v == "cat" {
				return ""
			}
			return v
		}
	}
	return defaultPager(runtime.GOOS)
}

// defaultPager is the pager when none is named: less, except on Windows,
// which has none (a missing one, run through cmd, would exit non-zero as
// a reader's quit does, and the text would be lost).
func defaultPager(goos string) string {
	if goos == "windows" {
		return ""
	}
	return "less"
}

func lookup(getenv func(string) string, k string) (string, bool) {
	v := getenv(k)
	if v != "" {
		return v, true
	}
	// Set but empty (PAGER=) means no pager, as for git; only the real
	// environment can tell empty from unset.
	if _, set := os.LookupEnv(k); set && os.Getenv(k) == "" {
		return "", true
	}
	return "", false
}

// long reports whether text needs more lines than the screen has.
func long(text []byte, rows int) bool {
	return rows > 0 && bytes.Count(text, []byte("\n")) >= rows
}

// page writes text to stdout, through the pager when asked and the text
// is longer than the screen. A pager that cannot start is skipped.
func page(text []byte, stdout, stderr io.Writer, usePager bool, getenv func(string) string) error {
	_, rows := termSize(stdout)
	cmdline := pagerCommand(getenv)
	if !usePager || cmdline == "" || !long(text, rows) {
		_, err := stdout.Write(text)
		return err
	}
	cmd := shellrun.Command(context.Background(), cmdline)
	cmd.Stdin = bytes.NewReader(text)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return nil // the reader quit the pager
		}
		_, err := stdout.Write(text)
		return err
	}
	return nil
}
