package server

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// attestLogged writes the bundle of the session whose proof is proof. The
// record is verified and the bundle signed without proofMu (a large
// record takes a while, and every session's proof waits on that lock);
// the bundle is written under it only if the proof is still the
// session's: a reseal since removed it, and the newer proof brings its
// own bundle.
func (s *Server) attestLogged(session string, proof []byte) {
	b, err := s.attestation(session, proof)
	if err != nil {
		s.cfg.Log.Error("attestation", "session", session, "error", err.Error())
		return
	}
	base := filepath.Join(s.cfg.Dir, session)
	s.tl.proofMu.Lock()
	defer s.tl.proofMu.Unlock()
	if cur, err := os.ReadFile(base + proofSuffix); err != nil || !bytes.Equal(cur, proof) {
		return
	}
	if err := durable.WriteFileMode(base+attestSuffix, b, 0o600); err != nil {
		s.cfg.Log.Error("attestation", "session", session, "error", err.Error())
	}
}

// attestation verifies the session's record as a reader with the
// server's keys would (its checkpoint, the proof under the log's key
// alone: quorum none) and returns its bundle, signed by the key in force.
// Every key the server has signed with counts, the ones it handed over
// (DATA/key-rotations) too: a session sealed before a rotation is
// verified under the key that sealed it, and its proof under the log key
// of its day (the log signs with the server's key), while the bundle is
// signed by the only key the server still holds (docs/attestation.md).
func (s *Server) attestation(session string, proof []byte) ([]byte, error) {
	base := filepath.Join(s.cfg.Dir, session)
	rec, err := readlimit.Large(base+".record.json", readlimit.Record)
	if err != nil {
		return nil, err
	}
	cp, err := os.ReadFile(base + ".record.checkpoint")
	if err != nil {
		return nil, err
	}
	pubs := []ed25519.PublicKey{s.cfg.Key.Public().(ed25519.PublicKey)}
	for _, r := range s.rotations {
		if !slices.ContainsFunc(pubs, func(k ed25519.PublicKey) bool { return k.Equal(r.Old) }) { // a key handed back is listed once
			pubs = append(pubs, r.Old)
		}
	}
	var cpKeys []checkpoint.Key
	logPolicy := "log " + s.cfg.TLog.VerifierKey() + "\n"
	for i, pub := range pubs {
		vkey, err := checkpoint.VerifierKey(s.cfg.Origin, pub)
		if err != nil {
			return nil, err
		}
		key, err := checkpoint.ParseVerifierKey([]byte(vkey))
		if err != nil {
			return nil, err
		}
		cpKeys = append(cpKeys, key)
		if i > 0 {
			lkey, err := checkpoint.VerifierKey(s.cfg.TLog.Origin(), pub)
			if err != nil {
				return nil, err
			}
			if !strings.Contains(logPolicy, "log "+lkey+"\n") { // a duplicate key is a bad policy
				logPolicy += "log " + lkey + "\n"
			}
		}
	}
	pol, err := logproof.ParsePolicy([]byte(logPolicy + "quorum none\n"))
	if err != nil {
		return nil, err
	}
	var col verdict.Collect
	in := verdict.Inputs{Record: rec, Pinned: pubs, Checkpoints: [][]byte{cp}, CheckpointKeys: cpKeys,
		Log: verdict.LogInputs{Proof: proof, Policy: pol}}
	in.Top, in.EachStep = col.Chain(nil, nil)
	out := verdict.Run(in)
	if err := out.Err(); err != nil {
		return nil, err
	}
	return sigbundle.Sign(verdict.Facts(in, out, &col), s.cfg.Key)
}
