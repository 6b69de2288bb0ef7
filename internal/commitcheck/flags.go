package commitcheck

import (
	"flag"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// Flags are logbook-verify --commits' own flags (docs/commits.md); the
// record's (--pubkey, --policy-key, …) are internal/verdictflags'.
type Flags struct {
	Range, records, repo, require, level string
	max                                  int
}

// NewFlags registers them on fs.
func NewFlags(fs *flag.FlagSet) *Flags {
	c := &Flags{}
	c.Register(fs)
	return c
}

// Register adds them to fs.
func (c *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Range, "commits", "", "check each commit of the `RANGE` (BASE..HEAD): its git note under refs/notes/logbook and the record it names, verified with the other flags (docs/commits.md); one line per commit")
	fs.StringVar(&c.records, "records", "", "with --commits: the `DIR` of sealed records the notes name")
	fs.StringVar(&c.repo, "repo", ".", "with --commits: a `DIR` in the repository's work tree")
	fs.StringVar(&c.require, "require-record", "agent", "with --commits: `agent` fails a binding that does not hold; all also fails a commit with none")
	fs.StringVar(&c.level, "require-level", "", "with --commits: a commit's record must hold at `LEVEL` local, server (a server's checkpoint covers it: give --checkpoint-key) or logged, else LEVEL_TOO_LOW")
	fs.IntVar(&c.max, "max-commits", 100000, "with --commits: refuse a range of more than `N` commits (RANGE_TOO_LARGE)")
}

// Run checks the range, each record verified with vf's inputs (read
// once, and what each record has beside it: its checkpoint sidecar, its
// proof of logging) and prints the lines: 0 the range passes, 1 it does
// not, 2 a usage or I/O error (said on stderr). args are the command
// line's other arguments: there must be none.
func (c *Flags) Run(vf *verdictflags.Flags, args []string, asJSON bool, stdout, stderr io.Writer) int {
	in, err := vf.Load()
	if err == nil && len(args) > 0 {
		err = fmt.Errorf("--commits takes no RECORD (%s): the records are in --records DIR", args[0])
	}
	load := func(p string) (verdict.Inputs, error) { return vf.Record(in, p, nil) }
	pass := false
	switch {
	case err != nil:
	case c.records == "":
		err = fmt.Errorf("--commits needs --records DIR: the folder of sealed records the notes name (a project's own: its .logbook)")
	case c.require != "agent" && c.require != "all":
		err = fmt.Errorf("--require-record %q: want agent or all", c.require)
	case c.level != "" && levels[c.level] == 0:
		err = fmt.Errorf("--require-level %q: want local, server or logged", c.level)
	default:
		pass, err = Print(Options{Repo: c.repo, Range: c.Range, Records: c.records, RequireAll: c.require == "all", RequireLevel: c.level, MaxCommits: c.max, Load: load}, asJSON, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	if pass {
		return 0
	}
	return 1
}
