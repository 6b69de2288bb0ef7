//go:build unix

package server

import (
	"fmt"
	"path/filepath"
	"syscall"
)

// rootOnly reports why path, or a folder above it, could be changed by a
// user other than root (owner not root, or writable by group or others).
func rootOnly(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return err
		}
		if st.Uid != 0 {
			return fmt.Errorf("%s is owned by uid %d, not root", p, st.Uid)
		}
		if st.Mode&0o022 != 0 && st.Mode&syscall.S_ISVTX == 0 {
			return fmt.Errorf("%s is writable by group or others", p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
