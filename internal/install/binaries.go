package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// hookBinaries are what a project's hooks call; alsoCopied go with them
// when they are there, so that the project's copy can install, uninstall
// and verify too, and record-step --policy finds logbook-policy beside
// it (docs/policy.md). Hooks that send events to a logbook server call
// record-step only (serverBinaries): the server seals, and the project
// records nothing to verify.
var (
	hookBinaries   = []string{"record-step", "logbook-seal"}
	alsoCopied     = []string{"logbook-install", "logbook-verify", "logbook-policy"}
	serverBinaries = []string{"record-step"}
)

// binaries is what install copies: the names it needs, then the names it
// copies when src has them.
type binaries struct{ needed, optional []string }

func binariesFor(server bool) binaries {
	if server {
		return binaries{needed: serverBinaries}
	}
	return binaries{needed: hookBinaries, optional: alsoCopied}
}

// all is every name install may have copied, in any mode: what uninstall
// takes away.
func allBinaries() []string { return append(append([]string{}, hookBinaries...), alsoCopied...) }

// in names what copy would copy from src: the needed binaries, and those
// of the optional ones that src holds.
func (b binaries) in(src string) []string {
	names := append([]string{}, b.needed...)
	for _, name := range b.optional {
		if _, err := os.Stat(filepath.Join(src, name)); err == nil {
			names = append(names, name)
		}
	}
	return names
}

// copy copies the binaries from src into dst (PROJECT/.logbook/bin),
// each through a temporary file and a rename, so a hook running meanwhile
// sees the old file or the new one, never half of one. A file already the
// same is left alone. It returns the names it wrote. A hook binary missing
// from src is an error, unless dst has it already.
func (bs binaries) copy(src, dst string) ([]string, error) {
	if src == "" {
		return nil, errors.New("no directory to copy record-step from: pass --bin DIR")
	}
	srcAbs, _ := filepath.Abs(src)
	dstAbs, _ := filepath.Abs(dst)
	if srcAbs == dstAbs {
		return nil, nil // the project's own copy, run from there
	}
	var copied []string
	for i, name := range append(append([]string{}, bs.needed...), bs.optional...) {
		b, err := os.ReadFile(filepath.Join(src, name))
		if errors.Is(err, fs.ErrNotExist) {
			if _, derr := os.Stat(filepath.Join(dst, name)); i < len(bs.needed) && derr != nil {
				return nil, fmt.Errorf("%s is not in %s, so the hooks would have nothing to run: build the commands there (in a logbook checkout: go build -o %s/ ./cmd/...) or pass --bin DIR", name, src, srcAbs)
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		target := filepath.Join(dst, name)
		if have, err := readlimit.Small(target, int64(len(b))); err == nil && bytes.Equal(have, b) {
			continue
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return nil, err
		}
		if err := durable.WriteFileMode(target, b, 0o755); err != nil {
			return nil, err
		}
		copied = append(copied, name)
	}
	return copied, nil
}
