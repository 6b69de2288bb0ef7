package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's master and its slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// TestWrapCtrlC: at a terminal, ^C reaches the wrapped command once. The
// terminal sends SIGINT to its whole foreground process group, the command
// included; the wrapper must not pass on a second one (two ^C make many
// interactive programs, agents among them, quit).
func TestWrapCtrlC(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	defer master.Close()
	// The command counts the SIGINTs it gets over half a second after the
	// ^C, then prints the count.
	script := `n=0; trap 'n=$((n+1))' INT; echo ready; i=0; while [ $i -lt 25 ]; do sleep 0.02; i=$((i+1)); done; echo "got $n"`
	rec := filepath.Join(t.TempDir(), "r.json")
	key, _ := newKey(t, t.TempDir(), "k")
	cmd := exec.Command(filepath.Join(bin, "logbook-wrap"), "--out", rec, "--key", key, "--", "sh", "-c", script)
	cmd.Stdin, cmd.Stderr = slave, slave
	var out bytes.Buffer
	r, w, _ := os.Pipe()
	cmd.Stdout = w
	// A new session whose controlling terminal is the pty: the wrapper's
	// process group is the terminal's foreground group, as in a shell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	slave.Close()
	go func() { // drain the terminal's output
		buf := make([]byte, 1024)
		for {
			if _, err := master.Read(buf); err != nil {
				return
			}
		}
	}()
	waitFor(t, r, "ready")
	master.Write([]byte{3}) // ^C
	done := make(chan error, 1)
	go func() { out.ReadFrom(r); done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("wrapper: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the wrapper did not end")
	}
	if got := strings.TrimSpace(out.String()); got != "got 1" {
		t.Fatalf("the command counted %q SIGINTs, want 1", got)
	}
	end := readRecord(t, rec).Steps[1].Data
	if _, ok := end["forwardedSignals"]; ok {
		t.Errorf("the terminal's SIGINT was forwarded too: %v", end)
	}
}
