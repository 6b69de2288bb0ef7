package gitbind

import (
	"bytes"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// BeforeSeal appends the repository's state at the seal (a logbook.git
// note, phase seal) to session's journal in dir, when the session's cwd
// is in a git work tree; it returns that repository ("" when none). A
// journal that already ends with such a note gets no second one: sealing
// again seals the same steps.
func BeforeSeal(dir, session string, now func() string) (string, error) {
	path := journalfile.Path(dir, session)
	repo := gitstep.HeaderCwd(dir, session)
	if repo == "" {
		return "", nil
	}
	if endsWithSealNote(path) {
		return repo, nil
	}
	h, err := gitfacts.ReadHead(repo)
	if err != nil {
		return "", nil // not a work tree (any more): nothing to say
	}
	return repo, gitstep.Append(dir, session, []chain.Step{gitstep.HeadStep(h, "seal")}, now)
}

// AfterSeal writes the notes binding the commits the record at path
// names in repo, at level. A record naming no commit costs one scan of
// its bytes.
func AfterSeal(repo, path, level string) ([]string, error) {
	if repo == "" {
		return nil, nil
	}
	data, err := readlimit.Large(path, readlimit.Record)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte(`"event":"`+gitstep.CommitEvent+`"`)) {
		return nil, nil
	}
	return Write(repo, data, level, nil)
}

// endsWithSealNote reports whether the journal's last line is a
// logbook.git note of phase seal.
func endsWithSealNote(path string) bool {
	last, err := journalfile.LastLine(path)
	return err == nil && bytes.Contains(last, []byte(`"event":"`+gitstep.HeadEvent+`"`)) && bytes.Contains(last, []byte(`"phase":"seal"`))
}
