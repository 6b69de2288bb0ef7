// Command release builds logbook's release archives from a git tag, the
// same bytes on every machine with the same Go version, and signs their
// sums with an Ed25519 key in the project's key format (docs/release.md).
//
//	release [-repo DIR] [-o DIR] [-targets LIST] -key FILE TAG
//	release verify -key FILE.pub DIR
//
// The build: TAG's commit is cloned into a fresh folder (so nothing but
// the commit goes in, whatever the checkout holds), and every command
// under cmd/ is built there for each target with CGO_ENABLED=0,
// -trimpath, -ldflags=-buildid= and the commit's own VCS stamp (version
// TAG, its revision and time; the clone is clean). Each target becomes
// logbook-TAG-GOOS-GOARCH.tar.gz (.zip for Windows): one folder with the
// binaries in bin/ and README.md, every entry dated the commit's time
// (SOURCE_DATE_EPOCH), owned by 0:0, in name order. SHA256SUMS lists the
// archives as sha256sum writes them; SHA256SUMS.sig is the raw 64-byte
// Ed25519 signature over SHA256SUMS, which `openssl pkeyutl -verify
// -rawin` checks against the public key (PEM SPKI) without trusting
// anything downloaded.
//
// verify checks DIR's SHA256SUMS.sig under the key and every archive
// SHA256SUMS names.
//
// Exit status: 0 done, 1 a build or a check failed, 2 usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/keys"
)

// Targets are the platforms a release ships (docs/install.md).
const Targets = "linux/amd64,linux/arm64,darwin/arm64,darwin/amd64,windows/amd64"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "verify" {
		return runVerify(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the git repository `DIR` holding the tag")
	out := fs.String("o", "", "write the archives, SHA256SUMS and SHA256SUMS.sig into `DIR` (default dist/TAG); it must not exist")
	targets := fs.String("targets", Targets, "the `GOOS/GOARCH` pairs to build, comma-separated")
	key := fs.String("key", "", "sign SHA256SUMS with the Ed25519 private key in `FILE` (PKCS#8 PEM, as logbook-seal --new-key writes it)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: release [-repo DIR] [-o DIR] [-targets LIST] -key FILE TAG\n       release verify -key FILE.pub DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *key == "" {
		fs.Usage()
		return 2
	}
	tag := fs.Arg(0)
	if *out == "" {
		*out = "dist/" + tag
	}
	priv, err := keys.ReadPrivate("-key", *key)
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 2
	}
	r := Release{Repo: *repo, Tag: tag, Out: *out, Targets: strings.Split(*targets, ","), Key: priv, Log: stderr}
	if err := r.Build(); err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d archives, SHA256SUMS and SHA256SUMS.sig in %s\n", tag, len(r.Targets), *out)
	return 0
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	key := fs.String("key", "", "the release key's public half, `FILE` (SPKI PEM)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *key == "" {
		fmt.Fprintln(stderr, "usage: release verify -key FILE.pub DIR")
		return 2
	}
	names, err := Verify(fs.Arg(0), *key)
	if err != nil {
		fmt.Fprintln(stderr, "release verify:", err)
		return 1
	}
	fmt.Fprintf(stdout, "SHA256SUMS signed by %s; %d archives match it\n", *key, len(names))
	return 0
}
