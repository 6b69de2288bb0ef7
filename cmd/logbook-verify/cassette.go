package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	"github.com/logbook-project/logbook/internal/cassettecheck/runbacktext"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// runCassette verifies a runback cassette (cassettecheck.Sniff: a top-level
// "$schema" starting "runback.", or any file with a flag only a cassette
// takes); handled is false when the arguments name no cassette, and
// logbook-verify goes on as for a record. Exit status is runback's: 0
// valid, 1 invalid or an error, 2 unverified.
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
	// runback's CLI, which reads every file as a cassette, would take it
	// (cassettecheck.Sniff). Read once, to the larger of the two limits: a pipe
	// cannot be read again, and a record refused here as a cassette too
	// large used to be verified from the rest of the pipe. Bytes that
	// cannot begin JSON stop the read at once (readlimit.LargeJSON): the
	// verdict, NOT_JSON, needs only them.
	forced := *force || *strict || len(hmacKeys) > 0
	data, err := readJSON(fs.Arg(0), max(readlimit.Cassette, maxRecord))
	if err == nil && int64(len(data)) > readlimit.Cassette && (forced || cassettecheck.Detect(data)) {
		err = &readlimit.TooLargeError{Path: fs.Arg(0), Limit: readlimit.Cassette}
		forced = true // a cassette, refused as one
	}
	if err != nil {
		if !forced {
			keepPiped(fs.Arg(0), nil, err)
			return 0, false
		}
		fmt.Fprintln(stderr, "logbook-verify:", err)
		if *asJSON {
			stdout.Write(cassettecheck.JSON(cassettecheck.Result{}, &cassettecheck.Error{Code: "READ_ERROR", Detail: err.Error()}))
		}
		return 1, true // runback: "Error reading file", exit 1
	}
	cassette, asRecord := cassettecheck.Sniff(data, forced)
	if !cassette {
		keepPiped(fs.Arg(0), data, nil)
		return 0, false
	}
	if asRecord {
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
	opt := cassettecheck.Options{Strict: *strict}
	if opt.Pinned, err = cassettecheck.ReadKeys("--pubkey", pubkeys); err != nil {
		return fail(err)
	}
	if opt.Revoked, err = cassettecheck.ReadKeys("--revoked", revoked); err != nil {
		return fail(err)
	}
	if opt.HMACKeys, err = cassettecheck.ReadHMACKeys(hmacKeys); err != nil {
		return fail(err)
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

// piped holds what was read from the one file named while looking for a
// cassette: a pipe (/dev/stdin, a FIFO) reads only once, and the record it
// turns out to be must be verified from the same bytes, not from an emptied
// pipe. A regular file is kept too: reading it again would hold two copies
// of it at once (the first is garbage the collector has not reached), which
// was half of logbook-verify's peak memory on a large record (issue 22).
// So is the error reading it met: read again, a pipe would yield its rest.
var piped = map[string]pipedRead{}

type pipedRead struct {
	data []byte
	err  error
}

func keepPiped(path string, data []byte, err error) {
	piped[path] = pipedRead{data, err}
}

// readInput reads a record, bundle or transcript named on the command line:
// the bytes already read from it when it is a pipe, else the file.
func readInput(path string, limit int64) ([]byte, error) {
	if p, ok := piped[path]; ok {
		if p.err != nil {
			return nil, p.err
		}
		if int64(len(p.data)) > limit {
			return nil, &readlimit.TooLargeError{Path: path, Limit: limit}
		}
		return p.data, nil
	}
	return readJSON(path, limit)
}

// readJSON reads a file that must be one JSON text. A stream whose first
// bytes cannot begin one is read no further (readlimit.LargeJSON): those
// bytes are returned, and the verdict on them is the whole stream's,
// NOT_JSON at the same offset.
func readJSON(path string, limit int64) ([]byte, error) {
	b, err := readlimit.LargeJSON(path, limit)
	if nj, ok := err.(*readlimit.NotJSONError); ok {
		return nj.Head, nil
	}
	return b, err
}
