// Package gitfacts reads the facts a record keeps about a git repository:
// ids and digests only, never a file's or a diff's text. It runs git as
// a subprocess with every output bounded (a diff is hashed as it streams,
// never held), so that a huge repository or a hostile object costs time,
// not memory. It imports nothing of the project: record-step calls it at
// a session's start and on a commit, never on an ordinary tool event.
package gitfacts

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Timeout bounds one git command: a hook must never hang the agent.
var Timeout = 30 * time.Second

// ErrTooLong is wrapped by the error of a git command whose output
// passed the limit its caller set.
var ErrTooLong = errors.New("git's output is over the limit")

// ErrNotRepo is wrapped when dir is not inside a git work tree.
var ErrNotRepo = errors.New("not a git repository")

// Output runs git -C dir args and returns its standard output, at most
// limit bytes: more is ErrTooLong, read no further.
func Output(dir string, limit int64, args ...string) ([]byte, error) {
	return Input(dir, nil, limit, args...)
}

// Input runs git -C dir args with stdin as its standard input and
// returns its standard output, at most limit bytes.
func Input(dir string, stdin io.Reader, limit int64, args ...string) ([]byte, error) {
	var buf bytes.Buffer
	err := stream(dir, stdin, func(r io.Reader) error {
		n, err := io.Copy(&buf, io.LimitReader(r, limit+1))
		if err == nil && n > limit {
			return fmt.Errorf("git %s: %w (%d bytes)", args[0], ErrTooLong, limit)
		}
		return err
	}, args...)
	return buf.Bytes(), err
}

// Digest runs git -C dir args and returns the SHA-256 of its standard
// output, lowercase hex, hashed as it streams: a diff of any size costs
// no memory.
func Digest(dir string, args ...string) (string, error) {
	h := sha256.New()
	err := stream(dir, nil, func(r io.Reader) error {
		_, err := io.Copy(h, r)
		return err
	}, args...)
	return hex.EncodeToString(h.Sum(nil)), err
}

// stream runs git with stdin (may be nil) and hands its stdout to read;
// stderr is kept, cut at 1 KiB, for the error.
func stream(dir string, stdin io.Reader, read func(io.Reader) error, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// A hook of the user's, or the agent's environment, must not change
	// what git prints: no pager, no colour, no replace objects, no
	// prompt for credentials.
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "PAGER=cat", "GIT_NO_REPLACE_OBJECTS=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	cmd.Stdin = stdin
	var stderr limitedBuffer
	stderr.max = 1024
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot run git: %w", err)
	}
	rerr := read(out)
	if rerr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if rerr != nil {
		return rerr
	}
	if werr != nil {
		msg := strings.TrimSpace(stderr.String())
		// No repository there, or no directory at all (a session's cwd
		// from a payload made elsewhere): both say "not in a work tree".
		if strings.Contains(msg, "not a git repository") || strings.Contains(msg, "cannot change to") {
			return fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
		return fmt.Errorf("git %s: %v: %s", args[0], werr, msg)
	}
	return nil
}

type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Head is the state of a work tree: the HEAD commit ("" before the first
// commit), the branch ("" when detached) and whether the tree differs
// from HEAD, with the digests of what says so.
type Head struct {
	Commit string
	Branch string
	Dirty  bool
	// StatusDigest is the SHA-256 of `git status --porcelain=v2`, and
	// DiffDigest that of `git diff HEAD` (of `git diff --cached` before
	// the first commit): they tell two states apart, and say nothing of
	// the files.
	StatusDigest, DiffDigest string
}

// ReadHead reads dir's HEAD, branch and dirtiness.
func ReadHead(dir string) (Head, error) {
	var h Head
	if _, err := Output(dir, 4096, "rev-parse", "--show-toplevel"); err != nil {
		return h, err
	}
	if out, err := Output(dir, 128, "rev-parse", "-q", "--verify", "HEAD^{commit}"); err == nil {
		h.Commit = strings.TrimSpace(string(out))
	}
	if out, err := Output(dir, 1024, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		h.Branch = strings.TrimSpace(string(out))
	}
	var status int64
	sum := sha256.New()
	err := stream(dir, nil, func(r io.Reader) error {
		n, err := io.Copy(sum, r)
		status = n
		return err
	}, "status", "--porcelain=v2", "--untracked-files=normal")
	if err != nil {
		return h, err
	}
	h.StatusDigest, h.Dirty = hex.EncodeToString(sum.Sum(nil)), status > 0
	diff := []string{"diff", "--no-color", "--no-ext-diff", "--binary", "HEAD"}
	if h.Commit == "" {
		diff = []string{"diff", "--no-color", "--no-ext-diff", "--binary", "--cached"}
	}
	h.DiffDigest, err = Digest(dir, diff...)
	return h, err
}

// Commit is what names a commit without its content: its id, its tree's
// id, its parents' ids and its patch id (`git patch-id --verbatim`: stable, whitespace kept,
// "" for a merge or a commit that changes nothing). The patch id is the
// change's: a rebase or a cherry-pick that applies cleanly keeps it.
type Commit struct {
	ID, Tree string
	Parents  []string
	PatchID  string
}

// maxHeader bounds a commit object's header lines read (a commit whose
// header is larger is refused: no real commit has one).
const maxHeader = 64 << 10

// ReadCommit reads rev's commit facts in dir.
func ReadCommit(dir, rev string) (Commit, error) {
	var c Commit
	out, err := Output(dir, 128, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil {
		return c, err
	}
	c.ID = strings.TrimSpace(string(out))
	err = stream(dir, nil, func(r io.Reader) error {
		br := bufio.NewReaderSize(io.LimitReader(r, maxHeader), 4096)
		for {
			line, err := br.ReadString('\n')
			line = strings.TrimSuffix(line, "\n")
			if line == "" || err != nil {
				return nil // the header ends at the first empty line
			}
			if v, ok := strings.CutPrefix(line, "tree "); ok {
				c.Tree = v
			} else if v, ok := strings.CutPrefix(line, "parent "); ok {
				c.Parents = append(c.Parents, v)
			}
		}
	}, "cat-file", "commit", c.ID)
	if err != nil {
		return c, err
	}
	if !IsID(c.Tree) {
		return c, fmt.Errorf("commit %s: no tree line", c.ID)
	}
	c.PatchID, err = PatchID(dir, c.ID)
	return c, err
}

// diffFlags pin the diff a patch id is taken over, whatever the user's
// configuration (renames, the diff algorithm, prefixes, colour, external
// diff and textconv drivers all change the text): the id taken at the
// commit and the one taken in CI must agree.
var diffFlags = []string{"-p", "--no-color", "--no-ext-diff", "--no-textconv", "--binary", "--no-renames",
	"--diff-algorithm=myers", "--src-prefix=a/", "--dst-prefix=b/"}

// PatchID is `git diff-tree -p --root ID | git patch-id --verbatim`'s id,
// the diff streamed from one process to the other; "" for a merge or an
// empty change.
func PatchID(dir, id string) (string, error) {
	var pid string
	err := patchIDs(dir, func(commit, patch string) error {
		pid = patch
		return nil
	}, append(append([]string{"diff-tree", "--root"}, diffFlags...), id)...)
	return pid, err
}

// PatchIDs hands each commit of rev-list range rng that has a patch id
// to each, with it: one `git log -p` streamed into one `git patch-id
// --verbatim` for the whole range (a merge, or a commit that changes
// nothing, has none and is not handed).
func PatchIDs(dir, rng string, each func(commit, patch string) error) error {
	return patchIDs(dir, each, append(append([]string{"log", "--root", "--format=%H"}, diffFlags...), rng, "--")...)
}

func patchIDs(dir string, each func(commit, patch string) error, diff ...string) error {
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := stream(dir, nil, func(r io.Reader) error {
			_, err := io.Copy(pw, r)
			return err
		}, diff...)
		pw.CloseWithError(err)
		errc <- err
	}()
	perr := stream(dir, pr, func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 256), 256)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 || !IsID(f[0]) || !IsID(f[1]) {
				return fmt.Errorf("git patch-id printed %q", clip(sc.Text()))
			}
			if err := each(f[1], f[0]); err != nil {
				return err
			}
		}
		return sc.Err()
	}, "patch-id", "--verbatim")
	pr.CloseWithError(io.EOF)
	if err := <-errc; err != nil {
		return err
	}
	return perr
}

// IsID reports an object id: 40 (SHA-1) or 64 (SHA-256) lowercase hex
// digits.
func IsID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TopLevel is the work tree's top directory of dir.
func TopLevel(dir string) (string, error) {
	out, err := Output(dir, 4096, "rev-parse", "--show-toplevel")
	return strings.TrimSpace(string(out)), err
}

// GitDir is the repository's common git directory of dir (hooks and
// notes live there, shared by its worktrees), absolute.
func GitDir(dir string) (string, error) {
	out, err := Output(dir, 4096, "rev-parse", "--path-format=absolute", "--git-common-dir")
	return strings.TrimSpace(string(out)), err
}

// Lines runs git -C dir args and hands each line of its output (without
// the newline) to each; a line over maxLine bytes is ErrTooLong.
func Lines(dir string, maxLine int, each func(line string) error, args ...string) error {
	return stream(dir, nil, func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4096), maxLine+1)
		for sc.Scan() {
			if err := each(sc.Text()); err != nil {
				return err
			}
		}
		if errors.Is(sc.Err(), bufio.ErrTooLong) {
			return fmt.Errorf("git %s: %w (a line over %d bytes)", args[0], ErrTooLong, maxLine)
		}
		return sc.Err()
	}, args...)
}

// Objects reads objects by id through one `git cat-file --batch`: each
// is given its type, size and, when it is a blob of at most max bytes,
// its content (nil otherwise: a larger object is skipped unread into
// memory). A missing object has type "missing".
func Objects(dir string, ids []string, max int64, each func(id, typ string, size int64, content []byte)) error {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		for _, id := range ids {
			w.WriteString(id)
			w.WriteByte('\n')
		}
		pw.CloseWithError(w.Flush())
	}()
	return stream(dir, pr, func(r io.Reader) error {
		br := bufio.NewReaderSize(r, 64<<10)
		for _, id := range ids {
			hdr, err := br.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file --batch: %w", err)
			}
			f := strings.Fields(hdr)
			if len(f) == 2 && f[1] == "missing" {
				each(id, "missing", 0, nil)
				continue
			}
			var size int64
			if len(f) != 3 {
				return fmt.Errorf("git cat-file --batch printed %q", clip(hdr))
			}
			if _, err := fmt.Sscan(f[2], &size); err != nil || size < 0 {
				return fmt.Errorf("git cat-file --batch printed %q", clip(hdr))
			}
			var content []byte
			if f[1] == "blob" && size <= max {
				content = make([]byte, size)
				if _, err := io.ReadFull(br, content); err != nil {
					return err
				}
			} else if _, err := io.CopyN(io.Discard, br, size); err != nil {
				return err
			}
			if _, err := br.Discard(1); err != nil { // the newline after each object
				return err
			}
			each(id, f[1], size, content)
		}
		return nil
	}, "cat-file", "--batch")
}

// CutLines is Lines for output whose lines may be long by anyone's
// choice (a commit's trailer): a line over maxLine bytes is given cut to
// maxLine, with cut true, the rest of it skipped unread into memory.
func CutLines(dir string, maxLine int, each func(line string, cut bool) error, args ...string) error {
	return stream(dir, nil, func(r io.Reader) error {
		br := bufio.NewReaderSize(r, max(maxLine+1, 4096))
		for {
			line, err := br.ReadSlice('\n')
			cut := false
			if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxLine+1 {
				cut = true
				line = line[:min(len(line), maxLine)]
				kept := string(line)
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				if err != nil && err != io.EOF {
					return err
				}
				if e := each(kept, true); e != nil {
					return e
				}
				if err == io.EOF {
					return nil
				}
				continue
			}
			if len(line) > 0 {
				if e := each(strings.TrimSuffix(string(line), "\n"), cut); e != nil {
					return e
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, args...)
}
