//go:build unix

package install

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// rootOnly reports why path, or a folder above it, could be replaced by a
// user other than root: not owned by root, or writable by group or others
// (a sticky folder such as /tmp is fine: others cannot rename or delete
// root's entries in it). nil when none can.
func rootOnly(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Errorf("%s: cannot read its owner", p)
		}
		if sys.Uid != 0 {
			return fmt.Errorf("%s is owned by uid %d, not root: its owner could replace what the hooks run", p, sys.Uid)
		}
		sticky := st.IsDir() && st.Mode()&fs.ModeSticky != 0
		if st.Mode().Perm()&0o022 != 0 && !sticky {
			return fmt.Errorf("%s is writable by group or others (mode %v)", p, st.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
