// Package files takes the files a wrapped command reads and makes: the
// --materials and --products globs (doublestar syntax, ** allowed) expanded
// under the working directory, each file's SHA-256 and size, a cap on how
// many, and how the products changed across the run.
package files

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// File is one file matched by a --materials or --products glob.
type File struct {
	Path   string // as matched: relative to the working directory unless the glob was absolute
	Sha256 string // hex SHA-256 of the contents (spec §8: raw bytes); "" when Err is set
	Bytes  int64
	Err    string // why the file could not be read, e.g. "permission denied"
}

// Snapshot is the files matched by a list of globs, sorted by path.
type Snapshot struct {
	Files     []File
	Truncated bool // more than the cap matched; Files holds the first ones found
}

// TooManyFilesError is returned when globs match more files than the cap.
type TooManyFilesError struct {
	Flag string // "--materials" or "--products"
	Glob string // the glob being expanded when the cap was passed
	Max  int
}

func (e *TooManyFilesError) Error() string {
	return fmt.Sprintf("%s %q: the globs match more than %d files (the cap); narrow the glob or raise --max-files", e.Flag, e.Glob, e.Max)
}

// ValidGlob reports whether a glob is well-formed (doublestar syntax: *, **,
// ?, [...], {a,b}).
func ValidGlob(g string) bool { return doublestar.ValidatePattern(filepath.ToSlash(g)) }

// Take matches globs against the file tree under cwd and digests every
// file found. A matched directory stands for every file under it. Neither
// ** nor the walk of a matched directory enters a symbolic link to a
// directory; a link is listed like a file and digested through (a link to
// a directory or a dangling link is listed with an error). A file that
// cannot be read is listed with its error instead of a digest. When more than max
// files match, Take stops: with truncate it returns the first max files
// found and Truncated, else a *TooManyFilesError naming flag.
func Take(flag string, globs []string, cwd string, max int, truncate bool) (Snapshot, error) {
	var snap Snapshot
	seen := map[string]bool{}
	var paths []string
	full := errors.New("cap reached")
	for _, g := range globs {
		add := func(p string) error {
			if seen[p] {
				return nil
			}
			if len(paths) == max {
				return full
			}
			seen[p] = true
			paths = append(paths, p)
			return nil
		}
		err := expand(g, cwd, add)
		if err == full {
			if !truncate {
				return snap, &TooManyFilesError{Flag: flag, Glob: g, Max: max}
			}
			snap.Truncated = true
			break
		}
		if err != nil {
			return snap, fmt.Errorf("%s %q: %w", flag, g, err)
		}
	}
	sort.Strings(paths)
	snap.Files = make([]File, len(paths))
	for i, p := range paths {
		snap.Files[i] = digestFile(p, cwd)
	}
	return snap, nil
}

// expand calls add with the path of each regular file (or entry that is
// not a directory) the glob g matches under cwd, walking matched
// directories.
func expand(g, cwd string, add func(string) error) error {
	g = filepath.ToSlash(g)
	if !doublestar.ValidatePattern(g) {
		return doublestar.ErrBadPattern
	}
	base, pat := doublestar.SplitPattern(g)
	root := base
	if !path.IsAbs(root) {
		root = filepath.Join(cwd, filepath.FromSlash(base))
	}
	fsys := os.DirFS(root)
	join := func(p string) string {
		if base == "." {
			return p
		}
		return path.Join(base, p)
	}
	return doublestar.GlobWalk(fsys, pat, func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			// A directory the glob names stands for the files under it.
			return fs.WalkDir(fsys, p, func(q string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return nil // an unreadable directory is skipped, like ** does
				}
				return add(join(q))
			})
		}
		return add(join(p))
	}, doublestar.WithNoFollow())
}

// digestFile hashes one file, streaming it; entries that are not regular
// files (a socket, a dangling link) are listed with an error.
func digestFile(p, cwd string) File {
	f := File{Path: p}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(cwd, p)
	}
	// O_NONBLOCK: opening a named pipe the glob matched must not wait for
	// a writer (it has no effect on a regular file).
	fh, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		f.Err = reason(err)
		return f
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		f.Err = reason(err)
		return f
	}
	if !st.Mode().IsRegular() {
		f.Err = "not a regular file"
		return f
	}
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		f.Err = reason(err)
		return f
	}
	f.Sha256, f.Bytes = hex.EncodeToString(h.Sum(nil)), n
	return f
}

// reason is an error's last part ("permission denied"), without the path,
// which the entry already names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Change is how a product file differs from before the command.
type Change struct {
	File
	Change string // "new", "changed", "unchanged" or "removed"
	Before string // the digest before the command, for changed and removed files
}

// Diff compares a products snapshot taken before the command with one
// taken after it. Every file after is listed, plus the removed ones. When
// after was truncated, removals cannot be told from files not reached, so
// none are listed.
func Diff(before, after Snapshot) []Change {
	was := make(map[string]File, len(before.Files))
	for _, f := range before.Files {
		was[f.Path] = f
	}
	var out []Change
	for _, f := range after.Files {
		c := Change{File: f, Change: "new"}
		if b, ok := was[f.Path]; ok {
			delete(was, f.Path)
			c.Change = "unchanged"
			if b.Sha256 != f.Sha256 || b.Err != f.Err {
				c.Change, c.Before = "changed", b.Sha256
			}
		}
		out = append(out, c)
	}
	if !after.Truncated {
		for _, f := range before.Files {
			if _, ok := was[f.Path]; ok {
				out = append(out, Change{File: File{Path: f.Path}, Change: "removed", Before: f.Sha256})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
