// Command logbook-install writes, merges or removes a harness's hook
// configuration so that every event reaches record-step and the session's
// end reaches logbook-seal --hook (internal/install; README, "Install").
// `record-step install|uninstall …` runs it: the code lives in its own
// binary so that record-step, which runs on every tool call, stays small
// and starts as fast as before.
//
//	logbook-install install   --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--dry-run]
//	logbook-install uninstall --harness NAME [--project DIR | --user | --local | --config FILE] [--dry-run]
//
// Exit status: 0 done (or nothing to do), 1 refused or failed (nothing
// written), 2 usage error.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/logbook-project/logbook/internal/install"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "install" && os.Args[1] != "uninstall") {
		fmt.Fprintln(os.Stderr, "usage: logbook-install install|uninstall --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--dry-run]")
		os.Exit(2)
	}
	os.Exit(install.Main(os.Args[1], os.Args[2:], os.Stdout, os.Stderr, os.Getenv, time.Now()))
}
