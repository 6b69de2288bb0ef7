// Command sigstore-check verifies a logbook session attestation bundle
// (docs/attestation.md) with sigstore-go's verifier and reads its
// statement with in-toto's Go bindings: the checks of someone who uses
// those libraries and none of logbook's code. It lives in a module of its
// own (this folder's go.mod), so that the main module does not carry
// sigstore-go's and cosign's dependencies; internal/sigbundle's tests
// build it, and cosign from the same go.mod.
//
//	sigstore-check --bundle FILE --key PEM --artifact FILE --type URI [--commit ID]...
//
// It trusts the one Ed25519 public key in --key, looked up by the bundle's
// hint (a bundle whose hint is not that key's is refused), needs no
// transparency log or timestamp (WithNoObserverTimestamps), and holds
// the statement's subjects to --artifact's SHA-256 (sigstore-go's
// artifact policy) and to each --commit (a gitCommit digest). Then it
// reads the DSSE payload as an in-toto v1 Statement (protojson, unknown
// fields refused), validates it, and checks that it round-trips.
//
// Exit status: 0 verified, 1 refused (the reason on stderr), 2 usage.
package main

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

type list []string

func (l *list) String() string     { return fmt.Sprint(*l) }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var bundleFile, keyFile, artifact, predType string
	var commits list
	flag.StringVar(&bundleFile, "bundle", "", "the Sigstore bundle `FILE`")
	flag.StringVar(&keyFile, "key", "", "the attestor's PEM public key `FILE`")
	flag.StringVar(&artifact, "artifact", "", "the record `FILE` (a subject's sha256)")
	flag.StringVar(&predType, "type", "", "the predicate type `URI` the statement must have")
	flag.Var(&commits, "commit", "a commit `ID` the statement must name (repeatable)")
	flag.Parse()
	if bundleFile == "" || keyFile == "" || artifact == "" || predType == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := check(bundleFile, keyFile, artifact, predType, commits); err != nil {
		fmt.Fprintln(os.Stderr, "sigstore-check:", err)
		os.Exit(1)
	}
	fmt.Println("OK")
}

func check(bundleFile, keyFile, artifact, predType string, commits []string) error {
	pemText, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemText)
	if err != nil {
		return err
	}
	der, err := cryptoutils.MarshalPublicKeyToDER(pub)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(der)
	wantHint := base64.StdEncoding.EncodeToString(sum[:])
	sv, err := signature.LoadVerifier(pub, crypto.Hash(0))
	if err != nil {
		return err
	}
	trusted := root.NewTrustedPublicKeyMaterial(func(hint string) (root.TimeConstrainedVerifier, error) {
		if hint != wantHint {
			return nil, fmt.Errorf("the bundle's key hint %q is not the trusted key's %q", hint, wantHint)
		}
		return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
	})
	b, err := bundle.LoadJSONFromPath(bundleFile)
	if err != nil {
		return fmt.Errorf("load bundle: %w", err)
	}
	v, err := verify.NewVerifier(trusted, verify.WithNoObserverTimestamps())
	if err != nil {
		return err
	}
	art, err := os.Open(artifact)
	if err != nil {
		return err
	}
	defer art.Close()
	res, err := v.Verify(b, verify.NewPolicy(verify.WithArtifact(art), verify.WithKey()))
	if err != nil {
		return fmt.Errorf("sigstore-go: %w", err)
	}
	if res.Statement == nil {
		return errors.New("sigstore-go verified no in-toto statement")
	}
	env := b.GetDsseEnvelope()
	if env == nil {
		return errors.New("the bundle holds no DSSE envelope")
	}
	return inToto(env.GetPayload(), predType, commits)
}

// inToto reads the payload with in-toto's own bindings.
func inToto(payload []byte, predType string, commits []string) error {
	var st intoto.Statement
	if err := protojson.Unmarshal(payload, &st); err != nil {
		return fmt.Errorf("in-toto: %w", err)
	}
	if err := st.Validate(); err != nil {
		return fmt.Errorf("in-toto: %w", err)
	}
	if st.GetPredicateType() != predType {
		return fmt.Errorf("in-toto: predicateType %q, want %q", st.GetPredicateType(), predType)
	}
	named := map[string]bool{}
	for _, s := range st.GetSubject() {
		if c := s.GetDigest()["gitCommit"]; c != "" {
			named[c] = true
		}
	}
	for _, c := range commits {
		if !named[c] {
			return fmt.Errorf("in-toto: no subject names commit %s", c)
		}
	}
	if len(named) != len(commits) {
		return fmt.Errorf("in-toto: the statement names %d commits, want %d", len(named), len(commits))
	}
	again, err := protojson.Marshal(&st)
	if err != nil {
		return err
	}
	var st2 intoto.Statement
	if err := protojson.Unmarshal(again, &st2); err != nil || !proto.Equal(&st, &st2) {
		return fmt.Errorf("in-toto: the statement does not round-trip (%v)", err)
	}
	if bytes.Contains(again, []byte(`"predicate":null`)) {
		return errors.New("in-toto: the predicate was lost")
	}
	return nil
}
