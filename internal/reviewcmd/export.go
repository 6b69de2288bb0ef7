package reviewcmd

import (
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// export writes the bundle: the record as it is, the signer's public key
// (the --pubkey given, which must be the signer's, else the record's own),
// the attestations and attestor keys given, the time-stamping roots given,
// the signed checkpoints (--checkpoint FILE..., else the sidecar
// ID.record.checkpoint beside ID.record.json when present), the proof of
// logging (--log-proof FILE, else the sidecar ID.record.tlog-proof), and as
// hints only, the --checkpoint-key keys and the --log-policy. A record that
// does not verify is not exported.
func export(path string, data []byte, o options, stdout, stderr io.Writer) int {
	var opt record.Options
	var signerPEM string
	if len(o.vf.Pubkeys) > 1 {
		fmt.Fprintln(stderr, "logbook-review: --export takes at most one --pubkey: the signer's")
		return 2
	}
	for _, f := range o.vf.Pubkeys {
		pub, text, err := keys.ReadPublic("--pubkey", f)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		opt.Pinned = append(opt.Pinned, pub)
		signerPEM = string(text)
	}
	res := record.Verify(data, opt)
	if !res.OK {
		fmt.Fprintf(stderr, "logbook-review: %s is refused (%s: %s); nothing exported\n", path, res.Code, res.Detail)
		return 1
	}
	if signerPEM == "" {
		signerPEM = recordKeyPEM(data)
	}
	b := &bundle.Bundle{Record: data, SignerKey: signerPEM}
	for _, f := range o.vf.Attestations {
		text, err := readlimit.Small(f, attest.MaxSize)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		b.Attestations = append(b.Attestations, text)
	}
	for _, f := range o.vf.AttestorKeys {
		_, text, err := keys.ReadPublic("--attestor-key", f)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		b.AttestorKeys = append(b.AttestorKeys, string(text))
	}
	if o.vf.TSARoots != "" {
		text, err := readlimit.Small(o.vf.TSARoots, readlimit.Roots)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		b.TSARoots = string(text)
	}
	cps := []string(o.vf.Checkpoints)
	if len(cps) == 0 {
		// The server writes the final checkpoint beside the record:
		// ID.record.json -> ID.record.checkpoint (docs/checkpoint.md).
		side := verdictflags.CheckpointSidecar(path)
		if _, err := os.Stat(side); err == nil && side != path {
			cps = []string{side}
		}
	}
	for _, cp := range cps {
		text, err := checkpoint.ReadFile(cp)
		if err == nil {
			// What a bundle carries must at least be a checkpoint: a
			// damaged file is refused here, not shipped for the
			// receiver to find.
			err = checkpoint.CheckNote(text)
		}
		if err != nil {
			fmt.Fprintf(stderr, "logbook-review: --export: checkpoint %s: %v\n", cp, err)
			return 2
		}
		b.Checkpoints = append(b.Checkpoints, text)
	}
	for _, f := range o.vf.CheckpointKeys {
		text, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		b.CheckpointKeys = append(b.CheckpointKeys, string(text))
	}
	proof := o.vf.LogProof
	if side := verdictflags.ProofSidecar(path); proof == "" && strings.HasSuffix(path, ".json") {
		if _, err := os.Stat(side); err == nil {
			proof = side
		}
	}
	if proof != "" {
		text, err := verdictflags.ReadProof(proof)
		if err == nil && len(text) > logproof.MaxProof {
			err = fmt.Errorf("--log-proof %s: over %d bytes: no tlog-proof is that large", proof, logproof.MaxProof)
		}
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		b.LogProofs = [][]byte{text}
	}
	if o.vf.LogPolicy != "" {
		text, err := readlimit.Small(o.vf.LogPolicy, readlimit.Policy)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		b.LogPolicy = string(text)
	}
	out, err := bundle.Write(b)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-review: --export:", err)
		return 2
	}
	if err := durable.WriteFileMode(o.export, out, 0o644); err != nil {
		fmt.Fprintf(stderr, "logbook-review: --export %s: %v\n", o.export, err)
		return 2
	}
	fmt.Fprintf(stdout, "exported %s: record %s (%d steps), signer key %s, %d attestation(s), %d checkpoint(s), %d log proof(s)\n",
		o.export, res.RecordID, res.StepCount, res.KeyID, len(b.Attestations), len(b.Checkpoints), len(b.LogProofs))
	return 0
}

// recordKeyPEM is signature.publicKey (SPKI, hex) as a PEM block.
func recordKeyPEM(data []byte) string {
	v, err := strictjson.Parse(data, strictjson.Options{MaxDepth: 64, Discard: "steps"})
	if err != nil {
		return ""
	}
	h, _ := v.Get("signature").GetString("publicKey")
	der, err := hex.DecodeString(h)
	if err != nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}
