package install

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// cleanup is what a project's uninstall takes away beyond the hooks: the
// harness's folder when uninstall left it empty, and, once no hook in the
// project calls them, the binaries install copied into .logbook/bin and
// (for Claude Code) the user-level guard install added. Sessions, records
// and backups under .logbook/ are kept: they are the user's. It returns
// notes for the user.
func cleanup(o Options, spec *hookconf.Spec, path string, stdout, stderr io.Writer, getenv func(string) string, now time.Time) []string {
	var notes []string
	project, _ := filepath.Abs(o.Project)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		for d, _ := filepath.Abs(filepath.Dir(path)); strings.HasPrefix(d, project+string(filepath.Separator)); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break // not empty, or not ours to remove
			}
			fmt.Fprintf(stdout, "%s: removed (empty)\n", d)
		}
	}
	if user := projectHooks(o.Project); user != "" {
		notes = append(notes, ".logbook/bin is kept: "+user+" still calls it")
		return notes
	}
	bin := filepath.Join(o.Project, ".logbook", "bin")
	var removed []string
	for _, name := range exeNames(o.goos(), allBinaries()) {
		if os.Remove(filepath.Join(bin, name)) == nil {
			removed = append(removed, name)
		}
	}
	if len(removed) > 0 {
		fmt.Fprintf(stdout, "%s: removed %s (no hook in the project calls them now)\n", bin, strings.Join(removed, ", "))
	}
	if os.Remove(bin) == nil && len(removed) == 0 {
		fmt.Fprintf(stdout, "%s: removed (empty)\n", bin)
	}
	if spec.Harness == "claude-code" && getenv("HOME") != "" && o.goos() != "windows" {
		notes = append(notes, dropGuard(o, stdout, stderr, getenv, now)...)
	}
	if entries, err := os.ReadDir(filepath.Join(o.Project, ".logbook")); err == nil && len(entries) > 0 {
		notes = append(notes, filepath.Join(o.Project, ".logbook")+" is kept: it holds the sessions, records and backups")
	}
	return notes
}

// dropGuard removes the user-level guard when this project's install
// added it and no other project it serves still records; else it says
// why the guard stays.
func dropGuard(o Options, stdout, stderr io.Writer, getenv func(string) string, now time.Time) []string {
	listed, others := unlistGuard(o, getenv)
	keep := " is kept; record-step uninstall --harness claude-code-guard --user removes it"
	if len(others) > 0 {
		return []string{"the user-level guard" + keep + " (it also serves " + strings.Join(others, ", ") + ")"}
	}
	if !listed {
		if b, err := readlimit.Small(filepath.Join(o.home(getenv), hookconf.Lookup("claude-code-guard").UserFile), maxConfig); err == nil && bytes.Contains(b, []byte("claude-code-guard")) {
			return []string{"the user-level guard" + keep + " (this project's install did not add it)"}
		}
		return nil
	}
	g := Options{Verb: "uninstall", Harness: "claude-code-guard", User: true, Bin: ".", NoKey: true, FollowSymlinks: o.FollowSymlinks}
	var out strings.Builder
	if Run(g, &out, stderr, getenv, now) != Done || !strings.Contains(out.String(), "logbook hooks removed") {
		return nil
	}
	fmt.Fprint(stdout, strings.ReplaceAll(out.String(), "logbook hooks removed", "user-level guard removed"))
	return []string{"the user-level guard against sessions started below a recording project is removed; another project that records with Claude Code gets it back with record-step install --harness claude-code there"}
}

// projectHooks names a hook configuration in the project that still calls
// the binaries in .logbook/bin (any harness's, logbook's or the user's
// own), "" for none.
func projectHooks(project string) string {
	for _, name := range hookconf.Names() {
		s := hookconf.Lookup(name)
		for _, f := range []string{s.ProjectFile, s.LocalFile} {
			if f == "" {
				continue
			}
			b, err := readlimit.Small(filepath.Join(project, f), maxConfig) // a FIFO is not waited on
			if err == nil && bytes.Contains(b, []byte(".logbook/bin/")) {
				return f
			}
		}
	}
	return ""
}
