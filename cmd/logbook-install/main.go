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
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/install"
)

const synopsis = `logbook-install install   --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--dry-run]
logbook-install uninstall --harness NAME [--project DIR | --user | --local | --config FILE] [--dry-run]
logbook-install install|uninstall --help   (the flags of each)`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return install.Main(args[0], args[1:], stdout, stderr, os.Getenv, time.Now())
	}
	// No verb: only --help and --version mean something.
	fs := flag.NewFlagSet("logbook-install", flag.ContinueOnError)
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logbook-install: unknown verb %q: want install or uninstall (run 'logbook-install --help')\n", fs.Arg(0))
	} else {
		fmt.Fprintln(stderr, "logbook-install: no verb: want install or uninstall (run 'logbook-install --help')")
	}
	return 2
}
