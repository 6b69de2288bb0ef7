package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/logbook-project/logbook/internal/durable"
)

// Events the hook could not send to the server (server down, squatted
// socket, refusal) are counted in DIR/server-unsent, one byte each
// (O_APPEND: parallel hooks cannot lose a count), and the next event that
// is sent carries the count in X-Logbook-Unsent; the server records it as
// a logbook.unsent note and the verifier reports it as a gap. The file is
// the agent's, so an agent can erase the count: it names an outage, it
// proves nothing.
const unsentFile = "server-unsent"

// countUnsent adds n to the count.
func countUnsent(dir string, n int) error {
	if dir == "" || n <= 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := durable.OpenNoFollow(filepath.Join(dir, unsentFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, n))
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

// claimUnsent takes the count for this event: the file is renamed to a
// name of this process's own (so two hooks cannot both send it), and its
// size read. A count that was claimed but not delivered goes back with
// countUnsent.
func claimUnsent(dir string) int {
	if dir == "" {
		return 0
	}
	path := filepath.Join(dir, unsentFile)
	if _, err := os.Lstat(path); err != nil {
		return 0
	}
	mine := path + "." + strconv.Itoa(os.Getpid())
	if err := os.Rename(path, mine); err != nil {
		return 0
	}
	st, err := os.Lstat(mine)
	os.Remove(mine)
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return int(min(st.Size(), 1<<30))
}

func unsentHeader(n int) [2]string {
	return [2]string{"X-Logbook-Unsent", fmt.Sprint(n)}
}
