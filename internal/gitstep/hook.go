package gitstep

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// CommitHook is record-step commit, which the post-commit hook
// record-step install adds runs after every commit, the agent's or a
// person's: it names the commit just made (HEAD of the work tree the
// hook runs in) in each session of the session directory still
// recording. It never fails the commit: it returns 0, saying on stderr
// and in errors.log what went wrong. stderr reaches the model when the
// agent commits: it holds ids only.
//
// With --server URL (the hook record-step install --server adds), the
// commit's facts go to that logbook-server instead, with the hooks'
// token ($LOGBOOK_SERVER_TOKEN): the server names the commit in each of
// its sessions recording in this work tree (docs/commits.md).
//
// It takes no other argument but --help (the synopsis on stdout, exit
// 0); another is a usage error, exit 2, and names nothing.
func CommitHook(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	server := ""
	if len(args) == 2 && args[0] == "--server" && args[1] != "" {
		server, args = args[1], nil
	} else if len(args) == 1 && strings.HasPrefix(args[0], "--server=") && len(args[0]) > len("--server=") {
		server, args = strings.TrimPrefix(args[0], "--server="), nil
	}
	if len(args) > 0 {
		w, code := stderr, 2
		if args[0] == "--help" || args[0] == "-h" || args[0] == "-help" {
			w, code = stdout, 0
		}
		fmt.Fprintln(w, "usage: record-step commit [--server URL]   (run by the post-commit hook record-step install adds: names HEAD in every session of the session directory, or of the logbook-server at URL, still recording; docs/commits.md)")
		return code
	}
	if server != "" {
		named, err := postCommit(server, ".", getenv)
		if len(named) > 0 {
			fmt.Fprintf(stderr, "logbook: commit named in session %s\n", strings.Join(named, ", "))
		}
		if err != nil {
			fmt.Fprintln(stderr, "record-step commit: the commit is not named in the session:", err)
		}
		return 0
	}
	now := Now(getenv)
	dir, err := cli.Dir("", getenv)
	if err == nil {
		// A session's journal lock held for good (a stuck hook, a
		// process the agent left holding it) must not hang the
		// person's git commit: past commitWait the commit is said not
		// named, and the process exits with the wait.
		type result struct {
			named []string
			err   error
		}
		done := make(chan result, 1)
		go func() {
			named, err := OnCommit(dir, ".", now)
			done <- result{named, err}
		}()
		select {
		case r := <-done:
			if len(r.named) > 0 {
				fmt.Fprintf(stderr, "logbook: commit named in session %s\n", strings.Join(r.named, ", "))
			}
			err = r.err
		case <-time.After(commitWait):
			err = fmt.Errorf("a session's journal stayed locked for %s (a hook or a seal holding it)", commitWait)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "record-step commit: the commit is not named in the session:", err)
		if dir != "" {
			_ = cli.LogError(dir, now(), "record-step commit", err.Error())
		}
	}
	return 0
}

// commitWait bounds how long record-step commit waits for the sessions'
// journals.
var commitWait = 10 * time.Second

// StartHook appends the repository's state to a session that just
// started: the repository of the session's cwd (the first cwd an event
// gave, else the directory the hook ran in); report is told what
// failed. Only a SessionStart pays for git: no other event runs it.
func StartHook(dir, session string, getenv func(string) string, report func(string)) {
	repo := HeaderCwd(dir, session)
	if repo == "" {
		return
	}
	if err := OnStart(dir, session, repo, Now(getenv)); err != nil {
		report(fmt.Sprintf("git state at the session's start not recorded: %v", err))
	}
}

// Now is the steps' clock: $LOGBOOK_NOW when set, else the system's.
func Now(getenv func(string) string) func() string {
	return func() string {
		if t, err := cli.Now(getenv); err == nil {
			return t
		}
		return instant.Format(time.Now())
	}
}

// HeaderCwd is the cwd of session's in-progress file's header line, ""
// when it cannot be read.
func HeaderCwd(dir, session string) string {
	f, err := os.Open(journalfile.Path(dir, session))
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 64<<10), 64<<10).ReadSlice('\n')
	if err != nil {
		return ""
	}
	return LineCwd(line)
}

// LineCwd is the cwd a journal's header line names ("" for none): the
// first line of the file, or of a replica's lines in the database.
func LineCwd(line []byte) string {
	v, err := strictjson.Parse(bytes.TrimSpace(line), strictjson.Options{})
	if err != nil {
		return ""
	}
	cwd, _ := v.GetString("cwd")
	return cwd
}
