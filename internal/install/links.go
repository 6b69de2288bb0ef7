package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrSymlink is wrapped when a path install or uninstall would write
// through is, or lies below, a symbolic link.
var ErrSymlink = errors.New("is a symbolic link")

// links checks the paths install and uninstall write for symbolic links
// before anything is written. A project may be someone else's (a cloned
// repository, an agent's own work): a symlinked .claude/settings.json
// would get the hooks merged into its target outside the project, and a
// symlinked .logbook would receive bin/record-step elsewhere. So a link is
// refused unless --follow-symlinks is given; then it is followed and
// stdout says where each write goes.
type links struct {
	follow bool
	out    io.Writer
	said   map[string]bool
}

// check looks at every component of path below root (root itself is what
// the user named and is taken as it is) and returns the path to write:
// path itself, or with follow its resolved form. A component that does
// not exist yet is created by the write, as a directory or file, not a link.
func (l *links) check(root, path string) (string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		rel = filepath.Base(path) // outside root: only the file itself
		root = filepath.Dir(path)
	}
	cur := root
	linked := false
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		dest, _ := os.Readlink(cur)
		if !l.follow {
			return "", fmt.Errorf("%s %w (to %s): refusing to write through it (remove the link, or pass --follow-symlinks to write where it points)", cur, ErrSymlink, dest)
		}
		linked = true
		if !l.said[cur] {
			if l.said == nil {
				l.said = map[string]bool{}
			}
			l.said[cur] = true
			if abs, err := filepath.EvalSymlinks(cur); err == nil {
				dest = abs
			}
			fmt.Fprintf(l.out, "following symlink %s -> %s (--follow-symlinks)\n", cur, dest)
		}
	}
	if !linked {
		return path, nil
	}
	// The deepest existing ancestor, resolved, with the rest appended.
	dir, tail := path, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, tail), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path, nil
		}
		tail = filepath.Join(filepath.Base(dir), tail)
		dir = parent
	}
}
