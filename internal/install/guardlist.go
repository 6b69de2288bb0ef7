package install

import (
	"bytes"
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

func readGuardList(path string) []string {
	b, err := readlimit.Small(path, maxConfig)
	if err != nil {
		return nil
	}
	var list []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			list = append(list, l)
		}
	}
	return list
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
	list := readGuardList(path)
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
	for _, p := range readGuardList(path) {
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
