package verdictflags

import (
	"context"
	"errors"
	"time"

	"github.com/logbook-project/logbook/internal/bundlecheck"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/consistency"
	"github.com/logbook-project/logbook/internal/keys"
)

// Bundle reads the receiver's keys and policies for a hand-over bundle
// (logbook-verify --bundle): the signers of trust and --pubkey (a file may
// hold several), the policy files, the checkpoints and their keys, and
// --log-policy. The proof of logging is the bundle's own: --log-proof and
// --log-tiles are refused.
func (f *Flags) Bundle(trust []string) (bundlecheck.Options, error) {
	var o bundlecheck.Options
	var err error
	if o.Trusted, err = keys.ReadPublicSet("--trust", append(append([]string{}, trust...), f.Pubkeys...)); err != nil {
		return o, err
	}
	if o.Policy, err = f.Policy(); err != nil {
		return o, err
	}
	if o.Checkpoints, o.CheckpointKeys, err = f.ReadCheckpoints(); err != nil {
		return o, err
	}
	if f.LogProof != "" || f.LogTiles != "" {
		return o, errors.New("--bundle takes its proof of logging from the bundle: --log-proof and --log-tiles do not apply")
	}
	if f.LogPolicy != "" {
		if o.LogPolicy, err = ReadPolicy(f.LogPolicy); err != nil {
			return o, err
		}
	}
	return o, nil
}

// Consistency shows that log checkpoint newer extends older (files), with
// a proof built from the tiles at --log-tiles under --log-policy
// (logbook-verify --log-consistency).
func (f *Flags) Consistency(older, newer string) (consistency.Result, error) {
	if f.LogPolicy == "" || f.LogTiles == "" {
		return consistency.Result{}, errors.New("usage: logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW")
	}
	pol, err := ReadPolicy(f.LogPolicy)
	if err != nil {
		return consistency.Result{}, err
	}
	var cps [2][]byte
	for i, file := range []string{older, newer} {
		if cps[i], err = checkpoint.ReadFile(file); err != nil {
			return consistency.Result{}, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return consistency.Check(ctx, cps[0], cps[1], pol, f.LogTiles, ReadToken(f.getenv()))
}
