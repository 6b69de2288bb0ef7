package main

import (
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/runback"
	"github.com/logbook-project/logbook/internal/runback/runbacktext"
)

// runCassette verifies a runback cassette (a top-level "$schema" starting
// "runback.", or any file with --cassette); handled is false when the
// arguments name no cassette, and logbook-verify goes on as for a record.
// Exit status is runback's: 0 valid, 1 invalid or an error, 2 unverified.
func runCassette(args []string, stdout, stderr io.Writer) (code int, handled bool) {
	fs := flag.NewFlagSet("logbook-verify", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	strict := fs.Bool("strict", false, "")
	force := fs.Bool("cassette", false, "")
	var pubkeys, revoked, hmacKeys pubkeyFlag
	fs.Var(&pubkeys, "pubkey", "")
	fs.Var(&revoked, "revoked", "")
	fs.Var(&hmacKeys, "hmac-key", "")
	if err := fs.Parse(args); err != nil {
		return 0, false // --help, --version, a record's flags: logbook-verify's own
	}
	if fs.NArg() != 1 {
		return 0, false
	}
	data, err := readlimit.Large(fs.Arg(0), readlimit.Cassette)
	if err != nil || !(*force || runback.Detect(data)) {
		return 0, false
	}
	// A cassette's events are read one at a time and dropped: the live heap
	// is the file and little more, so the default GC pace keeps the peak
	// near it (main's 400 suits records, whose tree stays).
	debug.SetGCPercent(100)
	fail := func(err error) (int, bool) {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 1, true
	}
	var opt runback.Options
	opt.Strict = *strict
	if len(pubkeys) > 0 {
		if opt.Pinned, err = readKeys("--pubkey", pubkeys); err != nil {
			return fail(err)
		}
	}
	if opt.Revoked, err = readKeys("--revoked", revoked); err != nil {
		return fail(err)
	}
	for _, f := range hmacKeys {
		k, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			return fail(err)
		}
		if k = runback.TrimKey(k); len(k) == 0 {
			return fail(fmt.Errorf("--hmac-key %s: empty key", f))
		}
		opt.HMACKeys = append(opt.HMACKeys, k)
	}
	res, err := runback.Verify(data, opt)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
	}
	switch {
	case *asJSON:
		stdout.Write(runback.JSON(res, err))
	case err != nil:
		fmt.Fprintf(stdout, "INVALID %s\n", err)
	default:
		runbacktext.Write(stdout, res)
	}
	if err != nil {
		return 1, true
	}
	return runback.Exit(res.Verdict), true
}

// readKeys reads SPKI PEM files, refusing keys under which forgeries verify.
func readKeys(flag string, files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		_, text, err := keys.ReadPublic(flag, f)
		if err != nil {
			return nil, err
		}
		pub, err := runback.PublicKey(text) // runback's own rule: no small-order key
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, f, err)
		}
		out = append(out, pub)
	}
	return out, nil
}
