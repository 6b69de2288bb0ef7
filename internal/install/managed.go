package install

import (
	"errors"
	"fmt"
	"path/filepath"
)

// A managed install (--managed) puts the hooks in the harness's
// system-wide managed configuration, which the agent's user cannot write,
// with the switch that makes the harness ignore every other hook
// (hookconf.Spec.ManagedFile, ManagedOnlyKey). It only protects the
// record if nothing on the way is the agent's to change: the binaries the
// hooks run, every folder above them, and the managed file and its
// folders must be root's and writable by no one else.

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
