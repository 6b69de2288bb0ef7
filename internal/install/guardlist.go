package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/userdirs"
)

// The user-level guard is one hook for every recording project of the
// user, so no project's uninstall may take it alone: guard-projects, in
// logbook's configuration directory, lists the projects whose install
// added it (one absolute path a line), and a project's uninstall removes
// the guard only when no other listed project still records.

func guardListPath(o Options, getenv func(string) string) string {
	if d := userdirs.Config(o.goos(), getenv); d != "" {
		return filepath.Join(d, "guard-projects")
	}
	return ""
}

// readGuardList reads the list; none is an empty list. A list that
// cannot be read (past maxConfig, not a file, unreadable) is an error,
// never an empty list: rewritten, it would lose the projects it names,
// and the guard with them at the next uninstall.
func readGuardList(path string) ([]string, error) {
	b, err := readlimit.Small(path, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			list = append(list, l)
		}
	}
	return list, nil
}

func writeGuardList(path string, list []string) error {
	if len(list) == 0 {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, l := range list {
		b.WriteString(l + "\n")
	}
	return durable.WriteFileMode(path, b.Bytes(), 0o600)
}

// listGuard adds the project to the guard's list.
func listGuard(o Options, getenv func(string) string) error {
	path := guardListPath(o, getenv)
	if path == "" {
		return nil
	}
	me := absOr(o.Project)
	if strings.ContainsAny(me, "\r\n") {
		return fmt.Errorf("%q holds a line break: it cannot be listed (one path a line)", me)
	}
	list, err := readGuardList(path)
	if err != nil {
		return fmt.Errorf("%w; it is left as it is", err)
	}
	for _, p := range list {
		if p == me {
			return nil
		}
	}
	return writeGuardList(path, append(list, me))
}

// unlistGuard takes the project off the guard's list (with the projects
// that no longer record: no .logbook/bin/record-step) and says whether
// it was listed and which listed projects the guard still serves.
func unlistGuard(o Options, getenv func(string) string) (listed bool, others []string) {
	path := guardListPath(o, getenv)
	if path == "" {
		return false, nil
	}
	me := absOr(o.Project)
	list, err := readGuardList(path)
	if err != nil {
		// The projects it names may still record: keep the guard.
		return false, []string{path + " (could not be read: " + err.Error() + ")"}
	}
	for _, p := range list {
		if p == me {
			listed = true
		} else if st, err := os.Stat(filepath.Join(p, ".logbook", "bin", "record-step")); err == nil && !st.IsDir() {
			others = append(others, p)
		}
	}
	if err := writeGuardList(path, others); err != nil {
		// The list could not be rewritten: keep the guard, as for another project.
		return listed, append(others, path+" (could not be rewritten: "+err.Error()+")")
	}
	return listed, others
}
