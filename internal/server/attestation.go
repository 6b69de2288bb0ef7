package server

import (
	"crypto/ed25519"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/sigbundle"
	"github.com/logbook-project/logbook/internal/verdict"
)

// A sealed session's one entry in the transparency log is its final
// checkpoint's leaf: the one whose proof is ID.record.tlog-proof (its
// earlier checkpoints' leaves are implied by it, docs/log.md). Once that
// proof is written, the server writes the session's attestation bundle
// (docs/attestation.md) beside it, ID.record.intoto.json: the in-toto
// statement of the session's commits and record, at level logged, with
// that proof as its logProof, signed with the server's key. The key
// signs checkpoints and records too; a DSSE signature covers bytes that
// start "DSSEv1 ", which neither a checkpoint note nor a record does.
const attestSuffix = ".record.intoto.json"

// writeAttestation verifies the session's record as a reader with the
// server's keys would (its checkpoint, the proof under the log's key
// alone: quorum none) and writes its bundle. proofMu is held.
func (s *Server) writeAttestation(session string, proof []byte) error {
	base := filepath.Join(s.cfg.Dir, session)
	rec, err := readlimit.Large(base+".record.json", readlimit.Record)
	if err != nil {
		return err
	}
	cp, err := os.ReadFile(base + ".record.checkpoint")
	if err != nil {
		return err
	}
	pub := s.cfg.Key.Public().(ed25519.PublicKey)
	vkey, err := checkpoint.VerifierKey(s.cfg.Origin, pub)
	if err != nil {
		return err
	}
	key, err := checkpoint.ParseVerifierKey([]byte(vkey))
	if err != nil {
		return err
	}
	pol, err := logproof.ParsePolicy([]byte("log " + s.cfg.TLog.VerifierKey() + "\nquorum none\n"))
	if err != nil {
		return err
	}
	var col verdict.Collect
	in := verdict.Inputs{Record: rec, Pinned: []ed25519.PublicKey{pub}, Checkpoints: [][]byte{cp}, CheckpointKeys: []checkpoint.Key{key},
		Log: verdict.LogInputs{Proof: proof, Policy: pol}}
	in.Top, in.EachStep = col.Chain(nil, nil)
	out := verdict.Run(in)
	if err := out.Err(); err != nil {
		return err
	}
	b, err := sigbundle.Sign(verdict.Facts(in, out, &col), s.cfg.Key)
	if err != nil {
		return err
	}
	return durable.WriteFileMode(base+attestSuffix, b, 0o600)
}
