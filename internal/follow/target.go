package follow

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/journalfile"
)

// Target turns --follow's argument into a directory and a session:
// a directory (every session in it), an in-progress file (that session),
// or a session id in the default session directory.
func Target(arg string, getenv func(string) string) (Options, error) {
	var opt Options
	byID := false
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		opt.Dir = arg
		return opt, nil
	}
	if id, ok := strings.CutSuffix(filepath.Base(arg), Suffix); ok {
		opt.Dir, opt.Session = filepath.Dir(arg), id
	} else {
		byID = true
		dir, err := cli.Dir("", getenv)
		if err != nil {
			return opt, err
		}
		opt.Dir, opt.Session = dir, arg
	}
	if err := journalfile.ValidSessionID(opt.Session); err != nil {
		return opt, fmt.Errorf("--follow %s: not a directory, an in-progress file or a session id: %v", arg, err)
	}
	if byID {
		// A bare id is most often a typo: say which sessions exist. A
		// file path may name a session about to start, and waits.
		if err := sessionExists(opt.Dir, opt.Session, arg); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// sessionExists checks that session has an in-progress file in dir. When
// it has not, the error lists the sessions that do, instead of waiting for
// one that may never start; to wait for a session not yet started, follow
// the directory.
func sessionExists(dir, session, arg string) error {
	if _, err := os.Stat(filepath.Join(dir, session+Suffix)); err == nil {
		return nil
	}
	var ids []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), Suffix); ok && !e.IsDir() {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	have := "there are no sessions there"
	if len(ids) > 0 {
		have = "sessions there: " + strings.Join(ids, ", ")
	}
	return fmt.Errorf("--follow %s: no session %s in %s; %s (follow the directory, --follow %s, to wait for a session to start)", arg, session, dir, have, dir)
}
