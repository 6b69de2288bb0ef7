package main

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

func event(name, id string) string {
	return `{"session_id":"disk","hook_event_name":"` + name + `","tool_name":"Bash","tool_use_id":"` + id + `","tool_input":{"command":"make"}}`
}

func runStep(t *testing.T, dir, payload string, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	env := func(k string) string {
		if k == "LOGBOOK_NOW" {
			return "2026-05-01T00:00:00Z"
		}
		return ""
	}
	code := run(append([]string{"--dir", dir}, args...), strings.NewReader(payload), io.Discard, &stderr, env)
	return code, stderr.String()
}

// TestDiskFaults: a full disk (a short write, then ENOSPC) and a
// read-only directory, injected through the journal's file-system seam.
// Each is reported on stderr and in errors.log with its reason, exits by
// the hook contract (0; 2 with --fail-closed on PreToolUse), and leaves
// the in-progress file byte for byte as it was: the session goes on, and
// seals and verifies, once the fault is gone.
func TestDiskFaults(t *testing.T) {
	saved := journalfile.FS
	defer func() { journalfile.FS = saved }()
	dir := t.TempDir()
	if code, msg := runStep(t, dir, event("PreToolUse", "a")); code != 0 || msg != "" {
		t.Fatalf("first event: %d %q", code, msg)
	}
	before, _ := os.ReadFile(journalfile.Path(dir, "disk"))

	full := func(f *os.File, b []byte) (int, error) {
		n, _ := f.Write(b[:len(b)/2])
		return n, syscall.ENOSPC
	}
	roOpen := func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if flag&(os.O_RDWR|os.O_WRONLY|os.O_CREATE) != 0 {
			return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EROFS}
		}
		return os.OpenFile(name, flag, perm)
	}
	roMkdir := func(path string, perm os.FileMode) error {
		return &os.PathError{Op: "mkdir", Path: path, Err: syscall.EROFS}
	}
	cases := []struct {
		name  string
		set   func()
		event string
		args  []string
		exit  int
		want  string
	}{
		{"full disk", func() { journalfile.FS.Write = full }, "PostToolUse", nil, 0, "no space left on device"},
		{"full disk, fail-closed PreToolUse", func() { journalfile.FS.Write = full }, "PreToolUse", []string{"--fail-closed"}, 2, "no space left on device"},
		{"full disk, fail-closed Stop", func() { journalfile.FS.Write = full }, "Stop", []string{"--fail-closed"}, 0, "no space left on device"},
		{"read-only directory", func() { journalfile.FS.OpenFile, journalfile.FS.MkdirAll = roOpen, roMkdir }, "PostToolUse", nil, 0, "read-only file system"},
		{"read-only directory, fail-closed PreToolUse", func() { journalfile.FS.OpenFile, journalfile.FS.MkdirAll = roOpen, roMkdir }, "PreToolUse", []string{"--fail-closed"}, 2, "read-only file system"},
	}
	for _, c := range cases {
		journalfile.FS = saved
		c.set()
		code, msg := runStep(t, dir, event(c.event, "b"), c.args...)
		if code != c.exit || !strings.Contains(msg, c.want) || !strings.Contains(msg, "WRITE_FAILED") {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, msg)
		}
		if now, _ := os.ReadFile(journalfile.Path(dir, "disk")); !bytes.Equal(now, before) {
			t.Fatalf("%s: the in-progress file changed:\n%s\n---\n%s", c.name, before, now)
		}
	}
	journalfile.FS = saved
	log, _ := os.ReadFile(filepath.Join(dir, "errors.log"))
	if n := bytes.Count(log, []byte("WRITE_FAILED")); n != len(cases) {
		t.Errorf("errors.log has %d WRITE_FAILED lines, want %d:\n%s", n, len(cases), log)
	}
	if code, msg := runStep(t, dir, event("PostToolUse", "a")); code != 0 || msg != "" {
		t.Fatalf("after the faults: %d %q", code, msg)
	}
	j, err := journalfile.Open(dir, "disk")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	res, err := seal.Seal(j, priv, seal.Options{Now: "2026-05-01T00:00:01Z"})
	if err != nil {
		t.Fatal(err)
	}
	if v := record.Verify(res.Record, record.Options{}); !v.OK || v.StepCount != 2 {
		t.Fatalf("%+v", v)
	}
	testreport.Line(t, fmt.Sprintf("disk faults: %d cases (ENOSPC after a short write, read-only directory; with and without --fail-closed): reported as WRITE_FAILED, exit per the hook contract, in-progress file unchanged, session seals and verifies after", len(cases)))
}
