package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Parse parses args with fs the way every logbook command does: -h and
// --help print synopsis (one line per mode) and the flags to stdout and
// exit 0; --version prints Version(fs.Name()) to stdout and exits 0; an
// unknown or malformed flag is reported on stderr with a pointer to
// --help, exit 2. done is true when the command should exit with code.
func Parse(fs *flag.FlagSet, args []string, synopsis string, stdout, stderr io.Writer) (code int, done bool) {
	version := fs.Bool("version", false, "print the version and exit")
	fs.SetOutput(stderr)
	fs.Usage = func() {} // errors get one line and a pointer to --help
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		Help(fs, synopsis, stdout)
		return 0, true
	case err != nil:
		UsageError(fs, err, stderr)
		return 2, true
	case *version:
		fmt.Fprintln(stdout, Version(fs.Name()))
		return 0, true
	}
	return 0, false
}

// UsageError writes the line that follows a flag error (the flag package
// has printed the error itself): the flag a mistyped one most likely
// meant, when one is close, and a pointer to --help.
func UsageError(fs *flag.FlagSet, err error, stderr io.Writer) {
	if s := Suggest(fs, err); s != "" {
		fmt.Fprintf(stderr, "%s: did you mean %s? (run '%s --help' for usage)\n", fs.Name(), s, fs.Name())
		return
	}
	fmt.Fprintf(stderr, "%s: run '%s --help' for usage\n", fs.Name(), fs.Name())
}

// Help writes synopsis and fs's flags to w.
func Help(fs *flag.FlagSet, synopsis string, w io.Writer) {
	fmt.Fprintln(w, "usage: "+strings.TrimSpace(strings.ReplaceAll(synopsis, "\n", "\n       ")))
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// Version is "PROG VERSION (REVISION[, modified]) GOVERSION" for
// --version, from Build.
func Version(prog string) string {
	v, rev, modified, goVersion := Build()
	if rev == "" {
		rev = "no VCS revision recorded"
	}
	if modified {
		rev += ", modified"
	}
	return fmt.Sprintf("%s %s (%s) %s", prog, v, rev, goVersion)
}

// Build reads the build info the go command embeds: the main module's
// version (a tag for `go install …@vX`, "devel" for a build in a
// checkout), the VCS revision and whether the tree was modified (when the
// build recorded them: -buildvcs), and the Go version.
func Build() (version, revision string, modified bool, goVersion string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", "", false, "unknown"
	}
	version = bi.Main.Version
	if version == "" || version == "(devel)" {
		version = "devel"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return version, revision, modified, bi.GoVersion
}

// ParseInterleaved parses flags wherever they stand among the arguments, so
// that `logbook-verify RECORD --evidence FILE` reads as it is written; the
// positional arguments are left in fs.Args(). After "--" nothing is a flag.
func ParseInterleaved(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// List is a repeatable string flag: each use appends its value, in order.
type List []string

func (l *List) String() string     { return strings.Join(*l, ",") }
func (l *List) Set(v string) error { *l = append(*l, v); return nil }
