// Package cli holds the few things every command shares: where the
// session directory is, what time it is, and how a failure is logged.
package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/userdirs"
)

// Dir resolves the session directory: the flag, else $LOGBOOK_DIR, else
// $CLAUDE_PROJECT_DIR/.logbook, else ./.logbook, made absolute once so a
// hook that runs in another cwd still finds the same files.
func Dir(flag string, getenv func(string) string) (string, error) {
	return filepath.Abs(dirName(flag, getenv))
}

// DirIn is Dir for a caller whose working directory is cwd, not this
// process's (logbook-policy serve answering record-step).
func DirIn(cwd, flag string, getenv func(string) string) string {
	d := dirName(flag, getenv)
	if !filepath.IsAbs(d) {
		d = filepath.Join(cwd, d)
	}
	return filepath.Clean(d)
}

func dirName(flag string, getenv func(string) string) string {
	d := flag
	switch {
	case d != "":
	case getenv("LOGBOOK_DIR") != "":
		d = getenv("LOGBOOK_DIR")
	case getenv("CLAUDE_PROJECT_DIR") != "":
		d = filepath.Join(getenv("CLAUDE_PROJECT_DIR"), ".logbook")
	default:
		d = ".logbook"
	}
	return d
}

// Now is the program's clock: LOGBOOK_NOW when set (spec §8), else the
// system clock.
func Now(getenv func(string) string) (string, error) {
	return instant.Now(getenv("LOGBOOK_NOW"), time.Now)
}

// StripBOM removes a leading UTF-8 byte order mark.
func StripBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF")) }

// LogError appends one line to DIR/errors.log (created 0600) so a failure
// that the harness hid from the user can still be found. It returns the
// error of writing the log, if any; the caller has already printed msg.
func LogError(dir, at, prog, msg string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := durable.OpenWrite(filepath.Join(dir, "errors.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %s: %s\n", at, prog, oneLine(msg))
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

func oneLine(s string) string {
	return string(bytes.ReplaceAll(bytes.ReplaceAll([]byte(s), []byte("\r"), []byte(`\r`)), []byte("\n"), []byte(`\n`)))
}

// SigningKeyPEM finds the signing key's PEM text, without parsing it: the
// file given by a --key flag, else $LOGBOOK_SIGNING_KEY holding the PEM
// text itself (for CI secrets), else ~/.config/logbook/signing.key. from
// names where it was found, for error messages. Parsing is left to
// internal/keys, which links crypto/x509: too heavy for a command that
// only needs to know the key is there.
func SigningKeyPEM(file string, getenv func(string) string) (text []byte, from string, err error) {
	switch {
	case file != "":
		b, err := readlimit.Small(file, readlimit.Key)
		if err != nil {
			return nil, file, fmt.Errorf("signing key: %w", err)
		}
		return b, file, nil
	case getenv("LOGBOOK_SIGNING_KEY") != "":
		from = "$LOGBOOK_SIGNING_KEY"
		text = []byte(getenv("LOGBOOK_SIGNING_KEY"))
		if !bytes.Contains(text, []byte("-----BEGIN")) {
			return nil, from, errors.New("$LOGBOOK_SIGNING_KEY holds no PEM text: it must hold the key itself (use --key FILE for a path)")
		}
		return text, from, nil
	}
	dir := userdirs.Config(runtime.GOOS, getenv)
	if dir == "" {
		return nil, "", errors.New("no signing key: pass --key FILE or set LOGBOOK_SIGNING_KEY")
	}
	from = filepath.Join(dir, "signing.key")
	b, err := readlimit.Small(from, readlimit.Key)
	if err != nil {
		return nil, from, fmt.Errorf("no signing key: pass --key FILE, set LOGBOOK_SIGNING_KEY, or create %s with logbook-seal --new-key (%v)", from, err)
	}
	return b, from, nil
}
