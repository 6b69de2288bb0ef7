package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/consistency"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/verdict"
)

// logFlags are the transparency-log checks (docs/log.md).
type logFlags struct {
	policy, proof, tiles string
	consistency          bool
}

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.policy, "log-policy", "", "C2SP tlog-policy `FILE` (trusted log keys, witness keys, quorum): check the record's tlog-proof offline; LOG_PROOF_INVALID, LOG_UNTRUSTED, WITNESS_QUORUM; level logged when the quorum holds")
	fs.StringVar(&l.proof, "log-proof", "", "the record's C2SP tlog-proof `FILE` (default: RECORD with .json replaced by .tlog-proof)")
	fs.BoolVar(&l.consistency, "log-consistency", false, "logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW: show that log checkpoint NEW extends OLD (the log never rewrote its past)")
	fs.StringVar(&l.tiles, "log-tiles", "", "the log's tiles, a tlog-tiles `DIR` (a copy of the log) or URL (http://HOST/v1/log/; $LOGBOOK_SERVER_READ_TOKEN, else $LOGBOOK_SERVER_TOKEN, when set, goes as the bearer token: a server's reads need its read token): for --log-consistency, and with --log-policy the freshness check: every leaf after the record's own, up to the log's latest checkpoint, is read, and a later checkpoint of the record's session refuses it (TRUNCATED)")
}

func (l *logFlags) load(record string) (verdict.LogInputs, error) {
	var in verdict.LogInputs
	if l.policy == "" {
		if l.proof != "" || l.tiles != "" {
			return in, errors.New("--log-proof and --log-tiles need --log-policy to judge under")
		}
		return in, nil
	}

	pol, err := readPolicy(l.policy)
	if err != nil {
		return in, err
	}
	in.Policy = pol
	p := l.proof
	if p == "" {
		p = strings.TrimSuffix(record, ".json") + ".tlog-proof"
	}
	if _, err := os.Stat(p); err != nil {
		return in, fmt.Errorf("--log-policy: no proof of logging: %v", err)
	}
	if in.Proof, err = readProof(p); err != nil {
		return in, err
	}
	if l.tiles != "" {
		if err := l.later(&in); err != nil {
			return in, fmt.Errorf("--log-tiles %s: freshness not checked: %v", l.tiles, err)
		}
	}
	return in, nil
}

// later reads, from --log-tiles, the log's leaves after the record's own
// up to the log's latest checkpoint (logproof.LaterLeaves): the verdict
// refuses the record when one is a later checkpoint of its session.
func (l *logFlags) later(in *verdict.LogInputs) error {
	p, err := logproof.Parse(in.Proof)
	if err != nil {
		return nil // the verdict names the bad proof
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	leaves, err := consistency.Later(ctx, in.Policy, uint64(p.Index)+1, l.tiles, readToken())
	if err != nil {
		return err
	}
	in.Later, in.LaterFrom, in.Fresh = leaves, p.Index+1, true
	return nil
}

// readProof reads a proof file of at most logproof.MaxProof bytes; a
// longer one (even /dev/zero) is still a verdict, LOG_PROOF_INVALID: no
// proof is that large.
func readProof(file string) ([]byte, error) {
	b, err := readlimit.Small(file, logproof.MaxProof)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return make([]byte, logproof.MaxProof+1), nil
	}
	return b, err
}

func readPolicy(file string) (*logproof.Policy, error) {
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

// runConsistency checks that checkpoint NEW extends OLD, with a proof built
// from the tiles at --log-tiles. Exit 0 consistent, 1 refused, 2 usage/IO.
func runConsistency(l logFlags, args []string, asJSON bool, stdout, stderr io.Writer) int {
	fail := func(err error) int { fmt.Fprintln(stderr, "logbook-verify:", err); return 2 }
	if len(args) != 2 || l.policy == "" || l.tiles == "" {
		return fail(errors.New("usage: logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW"))
	}
	pol, err := readPolicy(l.policy)
	if err != nil {
		return fail(err)
	}
	var cps [2][]byte
	for i, f := range args {
		if cps[i], err = checkpoint.ReadFile(f); err != nil {
			return fail(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := consistency.Check(ctx, cps[0], cps[1], pol, l.tiles, readToken())
	if err != nil {
		return fail(err)
	}
	if asJSON {
		r.WriteJSON(stdout)
	} else {
		r.WriteHuman(stdout)
	}
	if !r.OK() {
		return 1
	}
	return 0
}

// readToken is the bearer token for a server's log tiles: its read token
// ($LOGBOOK_SERVER_READ_TOKEN, logbook-server --read-token-file's), else
// $LOGBOOK_SERVER_TOKEN (a server with one token for everything).
func readToken() string {
	if t := strings.TrimSpace(os.Getenv("LOGBOOK_SERVER_READ_TOKEN")); t != "" {
		return t
	}
	return strings.TrimSpace(os.Getenv("LOGBOOK_SERVER_TOKEN"))
}
