package durable

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Pending is a new file written crash-safely in two halves, for a writer
// that knows where the file goes long before it knows what it holds
// (logbook-wrap --out, whose record exists only once the command has
// ended). Prepare creates the temporary file while the writer waits for
// the content; Commit then has only what cannot happen sooner: the
// content's write and fsync, the rename to the file's name, and the fsync
// of that name's directory.
//
// At every point a crash leaves either no file at the final path or the
// whole content there, never part of it: the content is durable (fsync)
// before the rename, and the rename is the only step that makes the name
// appear; the directory's fsync makes the rename itself durable before
// Commit returns. The temporary file lives where the caller says (a
// private directory beside the final one, on the same file system); a
// crash before Commit ends leaves it there, never under the final name.
//
// Unlike WriteFile, Commit never replaces a file already at the path: the
// rename is renameat2(RENAME_NOREPLACE), atomic against another writer
// (where the file system lacks it, a check just before a plain rename).
type Pending struct {
	ops  Ops
	f    *os.File
	tmp  string
	path string
	done bool
}

// ErrExists is wrapped by Commit's error when the final path exists with
// other content.
var ErrExists = errors.New("file exists")

// Ops are the file system calls a Pending makes, in order: Create (the
// temporary file), WriteAt, Sync, Rename, SyncDir, and Remove when it
// gives up. Fault-injection tests
// replace them to stop the sequence at any call, as a crash would;
// OSOps are the real ones.
type Ops struct {
	Create  func(path string, mode os.FileMode) (*os.File, error)
	WriteAt func(f *os.File, b []byte, off int64) (int, error)
	Sync    func(f *os.File) error
	// Rename renames old to new unless new exists (then an error wrapping
	// fs.ErrExist).
	Rename  func(old, new string) error
	SyncDir func(dir string) error
	Remove  func(path string) error
}

// OSOps are the operating system's calls.
var OSOps = Ops{
	Create: func(path string, mode os.FileMode) (*os.File, error) {
		f, err := OpenNoFollow(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return nil, err
		}
		// The final mode whatever the umask, as WriteFileMode's chmod.
		if err := f.Chmod(mode); err != nil {
			f.Close()
			os.Remove(path)
			return nil, err
		}
		return f, nil
	},
	WriteAt: (*os.File).WriteAt,
	Sync:    (*os.File).Sync,
	Rename:  renameNoReplace,
	SyncDir: SyncPath,
	Remove:  os.Remove,
}

// Prepare creates tmp (which must not exist, and must be on path's file
// system) for the file that Commit will move to path, with mode.
func Prepare(ops Ops, tmp, path string, mode os.FileMode) (*Pending, error) {
	f, err := ops.Create(tmp, mode)
	if err != nil {
		return nil, err
	}
	return &Pending{ops: ops, f: f, tmp: tmp, path: path}, nil
}

// Commit writes data into the temporary file, makes it durable, and
// renames it to the final path, then makes the rename durable (fsync of
// the path's directory). When a file is already at path, Commit succeeds
// without writing if it holds exactly data, else it fails with an error
// wrapping ErrExists; the temporary file is removed either way. On any
// failure nothing is at path that was not there before.
func (p *Pending) Commit(data []byte) error {
	if p.done {
		return errors.New("durable: Commit after Commit or Abort")
	}
	p.done = true
	if n, err := p.ops.WriteAt(p.f, data, 0); err != nil || n != len(data) {
		return p.fail(errors.Join(err, shortWrite(n, len(data))))
	}
	if err := p.ops.Sync(p.f); err != nil {
		return p.fail(err)
	}
	if err := p.f.Close(); err != nil {
		return p.fail(err)
	}
	if err := p.ops.Rename(p.tmp, p.path); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return p.fail(err)
		}
		p.ops.Remove(p.tmp)
		old, rerr := os.ReadFile(p.path)
		if rerr == nil && bytes.Equal(old, data) {
			return nil // already there, the very bytes
		}
		return fmt.Errorf("%s: %w: refusing to replace it", p.path, ErrExists)
	}
	return p.ops.SyncDir(filepath.Dir(p.path))
}

// Abort removes the temporary file; nothing is written at the path.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.f.Close()
	p.ops.Remove(p.tmp)
}

func (p *Pending) fail(err error) error {
	p.f.Close()
	p.ops.Remove(p.tmp)
	return err
}

func shortWrite(n, want int) error {
	if n == want {
		return nil
	}
	return fmt.Errorf("wrote %d of %d bytes", n, want)
}

// checkThenRename renames old to new unless new exists: not atomic
// against another writer, for file systems without renameat2.
func checkThenRename(old, new string) error {
	if _, err := os.Lstat(new); err == nil {
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	}
	return os.Rename(old, new)
}
