package main

import (
	"flag"
	"fmt"
	"os"
)

// cassetteFlags are runCassette's own flags, registered on the record
// path as well, so that --help lists them and, when the file is no
// cassette, the error names the mistake rather than calling the flag
// undefined.
type cassetteFlags struct {
	strict, force     bool
	revoked, hmacKeys pubkeyFlag
}

func (c *cassetteFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.strict, "strict", false, "runback cassette: any finding makes the verdict invalid (docs/runback.md §7)")
	fs.Var(&c.revoked, "revoked", "runback cassette: SPKI PEM public key `FILE` of a revoked signer (repeatable)")
	fs.Var(&c.hmacKeys, "hmac-key", "runback cassette: `FILE` holding a shared HMAC-SHA256 key (repeatable)")
	fs.BoolVar(&c.force, "cassette", false, "read the file as a runback cassette even if its \"$schema\" does not say so")
}

// check is called only when runCassette did not take the arguments: a
// cassette flag here means the file is missing, or is not a cassette.
func (c *cassetteFlags) check(files []string) error {
	name := ""
	switch {
	case c.strict:
		name = "strict"
	case len(c.revoked) > 0:
		name = "revoked"
	case len(c.hmacKeys) > 0:
		name = "hmac-key"
	case c.force:
		name = "cassette"
	default:
		return nil
	}
	if len(files) != 1 {
		return fmt.Errorf("--%s checks one runback cassette (docs/runback.md): give one FILE", name)
	}
	if _, err := os.Stat(files[0]); err != nil {
		return err
	}
	return fmt.Errorf("--%s is for a runback cassette (docs/runback.md), and %s is not one: its top-level \"$schema\" does not start with \"runback.\"", name, files[0])
}
