package main

import (
	"flag"
	"fmt"

	"github.com/logbook-project/logbook/internal/cli"
)

// cassetteFlags are runCassette's own flags, registered on the record
// path as well, so that --help lists them and, when the file is no
// cassette, the error names the mistake rather than calling the flag
// undefined. (--revoked is a record's flag too: verdictflags has it.)
type cassetteFlags struct {
	strict, force bool
	hmacKeys      cli.List
}

func (c *cassetteFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.strict, "strict", false, "runback cassette: any finding makes the verdict invalid (docs/runback.md §7)")
	fs.Var(&c.hmacKeys, "hmac-key", "runback cassette: `FILE` holding a shared HMAC-SHA256 key (repeatable)")
	fs.BoolVar(&c.force, "cassette", false, "read the file as a runback cassette even if its \"$schema\" does not say so")
}

// check is called only when runCassette did not take the arguments: a
// cassette-only flag here means there was not exactly one FILE. (--revoked
// is a record's flag too: a record signed by a revoked key is refused.)
func (c *cassetteFlags) check(files []string) error {
	name := ""
	switch {
	case c.strict:
		name = "strict"
	case len(c.hmacKeys) > 0:
		name = "hmac-key"
	case c.force:
		name = "cassette"
	default:
		return nil
	}
	return fmt.Errorf("--%s checks one runback cassette (docs/runback.md): give one FILE, not %d", name, len(files))
}
