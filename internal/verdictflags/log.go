package verdictflags

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/consistency"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/verdict"
)

// logInputs reads --log-policy and the proof it judges (docs/log.md):
// --log-proof, else the bundle's, else the sidecar beside the record.
// Without --log-policy nothing is judged (level server at most).
func (f *Flags) logInputs(record string, b *bundle.Bundle) (verdict.LogInputs, error) {
	var in verdict.LogInputs
	if f.LogPolicy == "" {
		switch {
		case f.LogProof != "" && f.LogTiles != "":
			return in, errors.New("--log-proof and --log-tiles need --log-policy to judge under")
		case f.LogProof != "":
			return in, errors.New("--log-proof needs --log-policy to judge under")
		case f.LogTiles != "":
			return in, errors.New("--log-tiles needs --log-policy to judge under")
		}
		return in, nil
	}
	pol, err := ReadPolicy(f.LogPolicy)
	if err != nil {
		return in, err
	}
	in.Policy = pol
	switch p := f.LogProof; {
	case p == "" && b != nil && len(b.LogProofs) > 0:
		in.Proof = b.LogProofs[0]
	case p == "" && b != nil:
		err = errors.New("the bundle holds none")
	default:
		if p == "" {
			p = ProofSidecar(record)
		}
		if _, err = os.Stat(p); err == nil {
			in.Proof, err = ReadProof(p)
		}
	}
	if err != nil {
		return in, fmt.Errorf("--log-policy: no proof of logging: %v", err)
	}
	if f.LogTiles != "" {
		if err := f.later(&in); err != nil {
			return in, fmt.Errorf("--log-tiles %s: freshness not checked: %v", f.LogTiles, err)
		}
	}
	return in, nil
}

// later reads, from --log-tiles, the log's leaves after the record's own
// up to the log's latest checkpoint (logproof.LaterLeaves): the verdict
// refuses the record when one is a later checkpoint of its session.
func (f *Flags) later(in *verdict.LogInputs) error {
	p, err := logproof.Parse(in.Proof)
	if err != nil {
		return nil // the verdict names the bad proof
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	leaves, err := consistency.Later(ctx, in.Policy, uint64(p.Index)+1, f.LogTiles, ReadToken(f.getenv()))
	// A live log replaces its partial tiles as it grows and removes the
	// old ones: a checkpoint read just before it moved on can name a
	// partial tile already gone. Read the latest checkpoint again.
	for try := 1; err != nil && try < 3 && (errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "neither partial nor full resource found")); try++ {
		time.Sleep(time.Duration(try) * 200 * time.Millisecond)
		leaves, err = consistency.Later(ctx, in.Policy, uint64(p.Index)+1, f.LogTiles, ReadToken(f.getenv()))
	}
	if err != nil {
		return err
	}
	in.Later, in.LaterFrom, in.Fresh = leaves, p.Index+1, true
	return nil
}

// ProofSidecar is where logbook-server writes a sealed record's proof of
// logging: ID.record.json -> ID.record.tlog-proof (docs/log.md).
func ProofSidecar(record string) string {
	return strings.TrimSuffix(record, ".json") + ".tlog-proof"
}

// ReadProof reads a proof file of at most logproof.MaxProof bytes; a
// longer one (even /dev/zero) is still a verdict, LOG_PROOF_INVALID: no
// proof is that large.
func ReadProof(file string) ([]byte, error) {
	b, err := readlimit.Small(file, logproof.MaxProof)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return make([]byte, logproof.MaxProof+1), nil
	}
	return b, err
}

// ReadPolicy reads and parses a C2SP tlog-policy (--log-policy).
func ReadPolicy(file string) (*logproof.Policy, error) {
	b, err := readlimit.Small(file, readlimit.Policy)
	if err != nil {
		return nil, err
	}
	pol, err := logproof.ParsePolicy(b)
	if err != nil {
		return nil, fmt.Errorf("--log-policy %s: %v", file, err)
	}
	return pol, nil
}

func (f *Flags) getenv() func(string) string {
	if f.Getenv == nil {
		return os.Getenv
	}
	return f.Getenv
}

// ReadToken is the bearer token for a server's log tiles: cli.ReadToken.
func ReadToken(getenv func(string) string) string { return cli.ReadToken(getenv) }
