package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/readlimit"
)

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n       ") }

func versionOf(w io.Writer) int {
	fmt.Fprintln(w, cli.Version("logbook-policy"))
	return 0
}

// refused prints a policy's named refusal and returns 1; any other error
// is I/O (2).
func refused(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "logbook-policy:", err)
	var e *orgpolicy.Error
	if errors.As(err, &e) {
		return 1
	}
	return 2
}

func sign(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logbook-policy sign", flag.ContinueOnError)
	keyFile := fs.String("key", "", "the signer's PKCS#8 PEM Ed25519 private key `FILE` (logbook-seal --new-key makes one)")
	out := fs.String("out", "", "write the signed policy to `FILE` (default stdout)")
	if code, done := cli.Parse(fs, args, "logbook-policy sign --key FILE [--out FILE] POLICY.json", stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 || *keyFile == "" {
		fmt.Fprintln(stderr, "logbook-policy sign: give --key FILE and one POLICY.json")
		return 2
	}
	priv, err := keys.ReadPrivate("--key", *keyFile)
	if err != nil {
		return refused(stderr, err)
	}
	pol, err := readPolicy(fs.Arg(0))
	if err != nil {
		return refused(stderr, err)
	}
	p, err := orgpolicy.ParseText(pol)
	if err == nil {
		_, err = gate.Compile(p) // a rule that does not compile is refused before it is signed
	}
	if err != nil {
		return refused(stderr, err)
	}
	signed, p, err := orgpolicy.Sign(pol, priv)
	if err != nil {
		return refused(stderr, err)
	}
	if *out == "" {
		_, _ = stdout.Write(signed)
	} else if err := durable.WriteFileMode(*out, signed, 0o644); err != nil {
		return refused(stderr, err)
	}
	fmt.Fprintf(stderr, "logbook-policy: signed %d rules, digest %s\n", len(p.Rules), p.Digest)
	return 0
}

// readPolicy reads a policy file, refusing one over the limit by name
// without reading it whole.
func readPolicy(file string) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.Size() > orgpolicy.MaxFile {
		return nil, &orgpolicy.Error{Code: orgpolicy.ErrTooLarge, Detail: fmt.Sprintf("%s is %d bytes, at most %d", file, st.Size(), orgpolicy.MaxFile)}
	}
	b, err := readlimit.Small(file, orgpolicy.MaxFile)
	if err != nil {
		return nil, &orgpolicy.Error{Code: orgpolicy.ErrUnreadable, Detail: err.Error()}
	}
	return b, nil
}

func verify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logbook-policy verify", flag.ContinueOnError)
	var pk cli.List
	fs.Var(&pk, "policy-key", "trusted policy signer: SPKI PEM public key `FILE` (repeatable; at least one)")
	require := fs.String("require-policy", "", "accept only the policy with this `DIGEST` (the name install and logbook-verify give it)")
	fs.StringVar(require, "require", "", "the same as --require-policy")
	if code, done := cli.Parse(fs, args, "logbook-policy verify --policy-key PUB [--require-policy DIGEST] SIGNED.json", stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 || len(pk) == 0 {
		fmt.Fprintln(stderr, "logbook-policy verify: give --policy-key PUB and one SIGNED.json")
		return 2
	}
	keys, err := trusted(pk)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy:", err)
		return 2
	}
	file, err := readPolicy(fs.Arg(0))
	if err != nil {
		return refused(stderr, err)
	}
	s, err := orgpolicy.Open(file, keys)
	if err == nil {
		_, err = gate.Compile(s.Policy)
	}
	if err != nil {
		return refused(stderr, err)
	}
	if *require != "" && s.Digest != *require {
		return refused(stderr, &orgpolicy.Error{Code: orgpolicy.ErrUntrusted, Detail: fmt.Sprintf("digest %s, required %s", s.Digest, *require)})
	}
	mode := "enforce"
	if s.Audit {
		mode = "audit"
	}
	fmt.Fprintf(stdout, "OK policy %q digest %s, %d rules, default %s, on error %s, mode %s, %d redaction pointers\n",
		s.Name, s.Digest, len(s.Rules), s.Default, s.OnError, mode, len(s.Redact))
	return 0
}
