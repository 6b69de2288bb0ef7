package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/logbook-project/logbook/internal/hookconf"
)

// TestHeadlessNoticeOnTerminal: claude -p shows no hook's systemMessage,
// so a session whose recording is off said so nowhere the user looks. Run
// as Claude Code runs a hook (stdout and stderr to pipes, the terminal it
// was started from as the controlling terminal, a pty here), the
// SessionStart hook says "recording is OFF" on the terminal when
// CLAUDE_CODE_ENTRYPOINT=sdk-cli (print mode), and not when it is cli
// (the interactive screen is Claude Code's, which shows the systemMessage):
// record-step when the session cannot be recorded, and the hook line of a
// clone without .logbook/bin.
func TestHeadlessNoticeOnTerminal(t *testing.T) {
	t.Parallel()
	spec := hookconf.Lookup("claude-code")
	var start hookconf.Event
	for _, e := range spec.Events {
		if e.Name == "SessionStart" {
			start = e
		}
	}
	project := t.TempDir() // no .logbook/bin: the hook line says it is missing
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o600) // --dir a file: nothing can be recorded
	payload := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`
	for _, c := range []struct {
		name string
		argv []string
	}{
		{"record-step", []string{filepath.Join(bin, "record-step"), "--harness", "claude-code", "--dir", notDir}},
		{"missing binary", []string{"sh", "-c", hookconf.ProjectTarget(spec).Command(start)}},
	} {
		for _, entry := range []string{"cli", "sdk-cli"} {
			master, slave := openPTY(t)
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Dir = project
			cmd.Env = append(os.Environ(), "CLAUDE_CODE_ENTRYPOINT="+entry, "CLAUDE_PROJECT_DIR="+project)
			cmd.Stdin = strings.NewReader(payload)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.ExtraFiles = []*os.File{slave} // fd 3: the controlling terminal
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
			var screen bytes.Buffer
			read := make(chan struct{})
			go func() { io.Copy(&screen, master); close(read) }() // EIO once no one holds the slave
			err := cmd.Run()
			slave.Close()
			<-read
			master.Close()
			if err != nil {
				t.Fatalf("%s (%s): %v; stderr %q", c.name, entry, err, stderr.String())
			}
			if !strings.Contains(stdout.String(), `"systemMessage":"logbook: recording is OFF`) {
				t.Errorf("%s (%s): stdout %q, want the systemMessage", c.name, entry, stdout.String())
			}
			said := strings.Contains(screen.String(), "logbook: recording is OFF for this session")
			t.Logf("%s (%s): terminal %q", c.name, entry, screen.String())
			if said != (entry == "sdk-cli") {
				t.Errorf("%s (%s): the terminal shows %q", c.name, entry, screen.String())
			}
		}
	}
}
