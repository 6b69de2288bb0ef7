package main

import (
	"bytes"
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	"github.com/logbook-project/logbook/internal/cassettecheck/runbacktext"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/readlimit"
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
	var pubkeys, revoked, hmacKeys cli.List
	fs.Var(&pubkeys, "pubkey", "")
	fs.Var(&revoked, "revoked", "")
	fs.Var(&hmacKeys, "hmac-key", "")
	if err := fs.Parse(args); err != nil {
		return 0, false // --help, --version, a record's flags: logbook-verify's own
	}
	if fs.NArg() != 1 {
		return 0, false
	}
	// A flag only a cassette takes says what the file is meant to be, as
	// runback's CLI, which reads every file as a cassette, would take it:
	// a file with no "$schema", another one, a top-level null or a byte
	// order mark then gets runback's verdict and exit status, never a
	// usage error. Without such a flag, a file that is no logbook record
	// but has a cassette's shape (cassettecheck.Shaped) is read as one too.
	cassetteOnly := *force || *strict || len(hmacKeys) > 0
	data, err := readlimit.Large(fs.Arg(0), readlimit.Cassette)
	if err != nil {
		if !cassetteOnly {
			return 0, false
		}
		fmt.Fprintln(stderr, "logbook-verify:", err)
		if *asJSON {
			stdout.Write(cassettecheck.JSON(cassettecheck.Result{}, &cassettecheck.Error{Code: "READ_ERROR", Detail: err.Error()}))
		}
		return 1, true // runback: "Error reading file", exit 1
	}
	if !cassetteOnly && !cassettecheck.Detect(data) && (isRecord(data) || !cassettecheck.Shaped(data)) {
		keepPiped(fs.Arg(0), data)
		return 0, false
	}
	if !cassettecheck.Detect(data) && isRecord(data) {
		fmt.Fprintf(stderr, "logbook-verify: note: %s is a logbook record, read as a runback cassette because of a cassette flag (--strict, --hmac-key, --cassette)\n", fs.Arg(0))
	}
	// A cassette's events are read one at a time and dropped: the live heap
	// is the file and little more, so the default GC pace keeps the peak
	// near it (main's 400 suits records, whose tree stays).
	debug.SetGCPercent(100)
	fail := func(err error) (int, bool) {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 1, true
	}
	var opt cassettecheck.Options
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
		if k = cassettecheck.TrimKey(k); len(k) == 0 {
			return fail(fmt.Errorf("--hmac-key %s: empty key", f))
		}
		opt.HMACKeys = append(opt.HMACKeys, k)
	}
	res, err := cassettecheck.Verify(data, opt)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
	}
	switch {
	case *asJSON:
		stdout.Write(cassettecheck.JSON(res, err))
	case err != nil:
		fmt.Fprintf(stdout, "INVALID %s\n", err)
	default:
		runbacktext.Write(stdout, res)
	}
	if err != nil {
		return 1, true
	}
	return cassettecheck.Exit(res.Verdict), true
}

// isRecord reports a logbook record (its "version" member names the
// format; records are canonical JSON, so it is written without spaces).
func isRecord(data []byte) bool {
	pat := `"version":"` + format.Version + `"`
	return containsFrom(data, []byte(pat), strings.IndexByte(pat, '@'))
}

// containsFrom is bytes.Contains(data, pat), found by searching for
// pat[k:] and checking the k bytes before each hit. With pat[k] a byte
// rarer in the data than pat[0] it is several times faster on a record,
// where pat[0] is often '"', at every other position (a tenth of
// logbook-verify's time on a 100,000-step record went to two such scans).
func containsFrom(data, pat []byte, k int) bool {
	rest := pat[k:]
	for off := k; off <= len(data); {
		i := bytes.Index(data[off:], rest)
		if i < 0 {
			return false
		}
		at := off + i
		if bytes.Equal(data[at-k:at], pat[:k]) {
			return true
		}
		off = at + 1
	}
	return false
}

// readKeys reads a cassette's pinned or revoked key files: SPKI PEM, or
// a JWK or Node key object as runback's caller would give one
// (cassettecheck.PublicKey), refusing keys under which forgeries verify. The
// file is read as every key file is (readlimit.Key; keys.ReadPublic's
// rule), but parsed by cassettecheck.PublicKey, which also reads JSON keys.
func readKeys(flag string, files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		text, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			return nil, err
		}
		pub, err := cassettecheck.PublicKey(text) // runback's own rule: no small-order key
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, f, err)
		}
		out = append(out, pub)
	}
	return out, nil
}

// piped holds what was read from the one file named while looking for a
// cassette: a pipe (/dev/stdin, a FIFO) reads only once, and the record it
// turns out to be must be verified from the same bytes, not from an emptied
// pipe. A regular file is kept too: reading it again would hold two copies
// of it at once (the first is garbage the collector has not reached), which
// was half of logbook-verify's peak memory on a large record (issue 22).
var piped = map[string][]byte{}

func keepPiped(path string, data []byte) {
	piped[path] = data
}

// readInput reads a record, bundle or transcript named on the command line:
// the bytes already read from it when it is a pipe, else the file.
func readInput(path string, limit int64) ([]byte, error) {
	if b, ok := piped[path]; ok {
		if int64(len(b)) > limit {
			return nil, &readlimit.TooLargeError{Path: path, Limit: limit}
		}
		return b, nil
	}
	return readlimit.Large(path, limit)
}
