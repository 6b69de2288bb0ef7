package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A managed install (--managed) puts the hooks in the harness's
// system-wide managed configuration, which the agent's user cannot write,
// with the switch that makes the harness ignore every other hook
// (hookconf.Spec.ManagedFile, ManagedOnlyKey). It only protects the
// record if nothing on the way is the agent's to change: the binaries the
// hooks run, every folder above them, and the managed file and its
// folders must be root's and writable by no one else.

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

// checkManaged refuses a managed install whose hooks would run binaries
// another user could replace; bin holds record-step (the commands' and
// SessionStart's program).
func checkManaged(o Options) error {
	if o.Server == "" {
		return errors.New("--managed needs --server URL: managed hooks that record into the project's .logbook would leave the record in the agent's hands")
	}
	for _, name := range []string{"record-step"} {
		p := filepath.Join(o.Bin, name)
		if err := rootOnly(p); err != nil {
			return fmt.Errorf("--managed: the hooks would run %s, which another user could replace: %v (install the binaries in a root-owned folder such as /usr/local/bin and pass --bin)", p, err)
		}
	}
	return nil
}
