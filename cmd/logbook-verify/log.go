package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/verdictflags"
)

// runConsistency checks that checkpoint NEW extends OLD, with a proof built
// from the tiles at --log-tiles. Exit 0 consistent, 1 refused, 2 usage/IO.
func runConsistency(vf verdictflags.Flags, args []string, asJSON bool, stdout, stderr io.Writer) int {
	fail := func(err error) int { fmt.Fprintln(stderr, "logbook-verify:", err); return 2 }
	if len(args) != 2 {
		return fail(errors.New("usage: logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW"))
	}
	r, err := vf.Consistency(args[0], args[1])
	if err != nil {
		return fail(err)
	}
	if asJSON {
		r.WriteJSON(stdout)
	} else {
		r.WriteHuman(stdout)
	}
	if !r.OK() {
		return 1
	}
	return 0
}
