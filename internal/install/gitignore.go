package install

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// gitignoreLine keeps .logbook/ (about 18 MB of binaries, the in-progress
// sessions, the records) out of commits, while letting a project commit
// .logbook/redact.json with a "!/.logbook/redact.json" line.
const gitignoreLine = "/.logbook/*"

// gitignoreNeeds reports whether PROJECT/.gitignore lacks an entry that
// ignores .logbook/.
func gitignoreNeeds(project string) (string, bool) {
	b, _ := readlimit.Small(filepath.Join(project, ".gitignore"), maxConfig)
	for _, l := range bytes.Split(b, []byte("\n")) {
		switch string(bytes.TrimSpace(l)) {
		case ".logbook", ".logbook/", "/.logbook", "/.logbook/", ".logbook/*", "/.logbook/*":
			return "", false
		}
	}
	return gitignoreLine, true
}

// addGitignore appends the entry when the project's .gitignore has none,
// and returns what it added ("" for nothing).
func addGitignore(project string, lk *links) (string, error) {
	line, need := gitignoreNeeds(project)
	if !need {
		return "", nil
	}
	path, err := lk.check(project, filepath.Join(project, ".gitignore"))
	if err != nil {
		return "", err
	}
	old, err := readlimit.Small(path, maxConfig)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	f, err := durable.OpenWrite(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", err
	}
	text := "# logbook: binaries, sessions and records (record-step install)\n" + line + "\n"
	if len(old) > 0 && old[len(old)-1] != '\n' {
		text = "\n" + text
	}
	_, err = f.WriteString(text)
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return line, err
}
