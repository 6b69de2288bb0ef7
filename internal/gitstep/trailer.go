package gitstep

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// RecordingRoute is the server's route that lists its sessions recording
// in a work tree (the commit-msg hook of a server's sessions asks it).
const RecordingRoute = "/v1/recording"

// TrailerHook is record-step trailer FILE, which the commit-msg hook of
// record-step install --trailer runs before every commit: it adds to the
// message in FILE one "Logbook-Record: ID" trailer for each session
// recording (of the session directory, or with --server URL of that
// logbook-server, in this work tree), with git interpret-trailers. The
// record does not exist yet, so the trailer can name only the session;
// logbook-verify --commits refuses a trailer that names a session whose
// record does not name the commit. Like record-step commit it never fails
// the commit: it returns 0 and says on stderr what went wrong.
func TrailerHook(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	server := ""
	if len(args) == 3 && args[0] == "--server" && args[1] != "" {
		server, args = args[1], args[2:]
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		w, code := stderr, 2
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "-help") {
			w, code = stdout, 0
		}
		fmt.Fprintln(w, "usage: record-step trailer [--server URL] MESSAGE-FILE   (run by the commit-msg hook record-step install --trailer adds: a Logbook-Record: SESSION trailer for each session recording; docs/commits.md)")
		return code
	}
	var ids []string
	var err error
	if server != "" {
		ids, err = recordingAt(server, ".", getenv)
	} else {
		var dir string
		if dir, err = cli.Dir("", getenv); err == nil {
			ids, err = Recording(dir)
		}
	}
	if err == nil && len(ids) > 0 {
		err = AddTrailers(".", args[0], ids)
	}
	if err != nil {
		fmt.Fprintln(stderr, "record-step trailer: no Logbook-Record trailer added:", err)
	}
	return 0
}

// AddTrailers adds a Logbook-Record trailer for each session to the
// commit message in file (one already there is not added twice).
func AddTrailers(repo, file string, sessions []string) error {
	args := []string{"interpret-trailers", "--in-place", "--if-exists", "addIfDifferent"}
	for _, s := range sessions {
		args = append(args, "--trailer", TrailerKey+": "+s)
	}
	_, err := gitfacts.Output(repo, 4096, append(args, file)...)
	return err
}

// RepoBody is the commit-msg hook's question to a server: which of its
// sessions are recording in the work tree top.
func RepoBody(top string) []byte {
	return marshal(strictjson.Obj(strictjson.Member{Key: "repo", Value: strictjson.Str(top)}))
}

// ParseRepoBody reads RepoBody's question.
func ParseRepoBody(b []byte) (string, error) {
	if len(b) > MaxCommitBody {
		return "", fmt.Errorf("%d bytes, over %d", len(b), MaxCommitBody)
	}
	v, err := strictjson.Parse(b, strictjson.Options{MaxDepth: 2})
	if err != nil {
		return "", err
	}
	top, ok := v.GetString("repo")
	if v.Kind != strictjson.Object || len(v.Members) != 1 || !ok || !absLine(top) {
		return "", errors.New("want an object of repo, an absolute path on one line")
	}
	return strings.Clone(top), nil
}

func absLine(p string) bool {
	return strings.HasPrefix(p, "/") && len(p) <= 4096 && !strings.ContainsAny(p, "\r\n\x00")
}

// recordingAt asks the server at url which of its sessions are
// recording in repo's work tree.
func recordingAt(url, repo string, getenv func(string) string) ([]string, error) {
	t, err := hookpost.Parse(url)
	if err != nil {
		return nil, err
	}
	top, err := gitfacts.TopLevel(repo)
	if err != nil {
		return nil, err
	}
	var headers [][2]string
	if tok := hookpost.Token(getenv); tok != "" {
		headers = append(headers, [2]string{"Authorization", "Bearer " + tok})
	}
	resp, err := hookpost.Post(t, RecordingRoute, headers, RepoBody(top), 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", url, err)
	}
	if resp.Status != 200 {
		return nil, fmt.Errorf("server %s answered %d", url, resp.Status)
	}
	return ParseNamed(resp.Body)
}
