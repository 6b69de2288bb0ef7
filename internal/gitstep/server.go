package gitstep

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// CommitRoute is the server's route for a commit's facts
// (logbook-server names the commit in each session recording in the
// repository).
const CommitRoute = "/v1/commits"

// MaxCommitBody bounds a commit's facts as posted: ids, one path.
const MaxCommitBody = 8 << 10

// CommitBody is the JSON record-step commit --server posts: the work
// tree's top (the server names the commit in the sessions whose cwd is in
// it) and the commit's facts, ids only.
func CommitBody(top string, c gitfacts.Commit) []byte {
	return marshal(strictjson.Obj(
		strictjson.Member{Key: "repo", Value: strictjson.Str(top)},
		strictjson.Member{Key: "commit", Value: strictjson.Str(c.ID)},
		strictjson.Member{Key: "tree", Value: strictjson.Str(c.Tree)},
		strictjson.Member{Key: "parents", Value: strictjson.StrArr(append([]string{}, c.Parents...))},
		strictjson.Member{Key: "patchId", Value: strictjson.Str(c.PatchID)},
	))
}

// ParseCommitBody reads what CommitBody wrote, strictly: exactly its
// members, every id a full hex id (the patch id may be ""), the
// repository an absolute path on one line.
func ParseCommitBody(b []byte) (top string, c gitfacts.Commit, err error) {
	if len(b) > MaxCommitBody {
		return "", c, fmt.Errorf("%d bytes, over %d", len(b), MaxCommitBody)
	}
	v, err := strictjson.Parse(b, strictjson.Options{MaxDepth: 4})
	if err != nil {
		return "", c, err
	}
	if v.Kind != strictjson.Object || len(v.Members) != 5 {
		return "", c, errors.New("want an object of repo, commit, tree, parents and patchId")
	}
	top, _ = v.GetString("repo")
	c.ID, _ = v.GetString("commit")
	c.Tree, _ = v.GetString("tree")
	c.PatchID, _ = v.GetString("patchId")
	ps := v.Get("parents")
	if ps == nil || ps.Kind != strictjson.Array || len(ps.Items) > 64 {
		return "", c, errors.New("parents is not an array of at most 64 ids")
	}
	for _, p := range ps.Items {
		if p.Kind != strictjson.String || !gitfacts.IsID(p.Str) {
			return "", c, errors.New("a parent is not a commit id")
		}
		c.Parents = append(c.Parents, strings.Clone(p.Str))
	}
	switch {
	case !gitfacts.IsID(c.ID) || !gitfacts.IsID(c.Tree):
		return "", c, errors.New("commit or tree is not an id")
	case c.PatchID != "" && !gitfacts.IsID(c.PatchID):
		return "", c, errors.New("patchId is not an id")
	case !absLine(top):
		return "", c, errors.New("repo is not an absolute path on one line")
	}
	top, c.ID, c.Tree, c.PatchID = strings.Clone(top), strings.Clone(c.ID), strings.Clone(c.Tree), strings.Clone(c.PatchID)
	return top, c, nil
}

// postCommit sends HEAD's facts to the server at url, with the hooks'
// bearer token (hookpost.Token: $LOGBOOK_SERVER_TOKEN, else the enrolled credential), and returns the sessions the
// server named the commit in. The answer is a claim of the server's:
// what the record says is checked by logbook-verify, not by the hook.
func postCommit(url, repo string, getenv func(string) string) ([]string, error) {
	t, err := hookpost.Parse(url)
	if err != nil {
		return nil, err
	}
	top, err := gitfacts.TopLevel(repo)
	if err != nil {
		return nil, err
	}
	c, err := gitfacts.ReadCommit(repo, "HEAD")
	if err != nil {
		return nil, err
	}
	var headers [][2]string
	if tok := hookpost.Token(getenv); tok != "" {
		headers = append(headers, [2]string{"Authorization", "Bearer " + tok})
	}
	resp, err := hookpost.Post(t, CommitRoute, headers, CommitBody(top, c), 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", url, err)
	}
	if resp.Status != 200 {
		why := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return '?'
			}
			return r
		}, string(resp.Body[:min(len(resp.Body), 300)]))
		if resp.Status == 401 {
			why += " (is LOGBOOK_SERVER_TOKEN set in this shell, or a credential enrolled with record-step install --enroll?)"
		}
		return nil, fmt.Errorf("server %s answered %d: %s", url, resp.Status, why)
	}
	return ParseNamed(resp.Body)
}

func marshal(v strictjson.Value) []byte {
	b, _ := jcs.Append(nil, &v) // strings and arrays of strings: cannot fail
	return b
}

// NamedBody is the server's answer: the sessions the commit is named in.
func NamedBody(sessions []string) []byte {
	return marshal(strictjson.Obj(strictjson.Member{Key: "sessions", Value: strictjson.StrArr(append([]string{}, sessions...))}))
}

// ParseNamed reads NamedBody's answer.
func ParseNamed(b []byte) ([]string, error) {
	v, err := strictjson.Parse(b, strictjson.Options{MaxDepth: 4})
	if err != nil {
		return nil, fmt.Errorf("the server's answer: %w", err)
	}
	s := v.Get("sessions")
	if s == nil || s.Kind != strictjson.Array {
		return nil, errors.New("the server's answer names no sessions")
	}
	var out []string
	for _, it := range s.Items {
		if it.Kind == strictjson.String {
			out = append(out, strings.Clone(it.Str))
		}
	}
	return out, nil
}
