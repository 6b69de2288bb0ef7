package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/follow"
)

// sessionExists checks that session has an in-progress file in dir. When
// it has not, the error lists the sessions that do, instead of waiting for
// one that may never start; to wait for a session not yet started, follow
// the directory.
func sessionExists(dir, session, arg string) error {
	if _, err := os.Stat(filepath.Join(dir, session+follow.Suffix)); err == nil {
		return nil
	}
	var ids []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), follow.Suffix); ok && !e.IsDir() {
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
