package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/logbook-project/logbook/internal/journalfile"
)

// TestNonRegularTargets: a FIFO (or a directory) planted where the journal,
// its lock or errors.log goes must not swallow events. Opening a FIFO
// O_RDWR succeeds and writes to it "succeed", so before the fstat check
// every event vanished with rc 0 and no word. Now the event is refused as
// WRITE_FAILED on stderr and in errors.log, rc 2 under --fail-closed, and
// nothing blocks (a FIFO opened write-only with no reader would wait).
func TestNonRegularTargets(t *testing.T) {
	t.Parallel()
	plant := map[string]func(path string) error{
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"dir":  func(p string) error { return os.Mkdir(p, 0o700) },
	}
	for _, target := range []string{"disk.steps.jsonl", "disk.lock"} {
		for kind, mk := range plant {
			t.Run(target+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				if err := mk(filepath.Join(dir, target)); err != nil {
					t.Fatal(err)
				}
				code, msg := runStep(t, dir, event("PreToolUse", "a"), "--fail-closed")
				if code != 2 || !strings.Contains(msg, "WRITE_FAILED") || !(strings.Contains(msg, "not a regular file") || kind == "dir" && strings.Contains(msg, "is a directory")) {
					t.Fatalf("rc %d, stderr %q: want 2 and WRITE_FAILED naming the non-regular file", code, msg)
				}
				log, err := os.ReadFile(filepath.Join(dir, "errors.log"))
				if err != nil || !strings.Contains(string(log), "WRITE_FAILED") || !strings.Contains(string(log), target) {
					t.Fatalf("errors.log: %v %q", err, log)
				}
				// Without --fail-closed: rc 0 (the hook contract), still said.
				code, msg = runStep(t, dir, event("PostToolUse", "a"))
				if code != 0 || !strings.Contains(msg, "WRITE_FAILED") {
					t.Fatalf("rc %d, stderr %q", code, msg)
				}
				if st, _ := os.Lstat(filepath.Join(dir, target)); st.Mode().IsRegular() {
					t.Fatal("the planted file was replaced")
				}
			})
		}
	}
	// errors.log itself a FIFO: the failure still reaches stderr, with why
	// the log could not take it, and nothing waits for a reader.
	t.Run("errors.log/fifo", func(t *testing.T) {
		dir := t.TempDir()
		if err := syscall.Mkfifo(journalfile.Path(dir, "disk"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(dir, "errors.log"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, msg := runStep(t, dir, event("PreToolUse", "a"), "--fail-closed")
		if code != 2 || !strings.Contains(msg, "WRITE_FAILED") || !strings.Contains(msg, "cannot write the error log") ||
			!strings.Contains(msg, "errors.log is a named pipe") {
			t.Fatalf("rc %d, stderr %q", code, msg)
		}
	})
}
