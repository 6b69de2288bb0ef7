// Package translog is logbook-server's transparency log: every session
// checkpoint the server signs becomes one leaf of a tile-based log kept by
// Tessera (github.com/transparency-dev/tessera), on POSIX files in the
// server's data directory or in MySQL/MariaDB, chosen by configuration
// alone (docs/log.md). The log's checkpoints are signed with the server's
// key under the log's own origin, cosigned by the witnesses of a C2SP
// tlog-policy when one is configured, and served read-only as C2SP
// tlog-tiles. For a sealed session it writes a C2SP tlog-proof that
// checks offline (internal/logproof).
package translog

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql" // the MySQL driver Tessera's MySQL storage is tested with
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/client"
	"github.com/transparency-dev/tessera/storage/mysql"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/logbook-project/logbook/internal/logproof"
)

// Drivers.
const (
	POSIX = "posix"
	MySQL = "mysql"
)

// Config chooses the storage and how the log batches and publishes.
type Config struct {
	Driver string // POSIX (default) or MySQL
	Dir    string // POSIX: the log's directory
	DSN    string // MySQL: a go-sql-driver DSN, user:pass@tcp(host:port)/db or @unix(/path)/db
	Origin string // the log's origin, and its key's note name
	Key    ed25519.PrivateKey
	// Witnesses is a C2SP tlog-policy with witness URLs: the server asks
	// them to cosign each checkpoint it publishes, and publishes only
	// once the quorum cosigned (appends go on meanwhile). Empty: none.
	Witnesses []byte
	// Batching: at most BatchSize leaves or BatchAge per sequencing
	// batch; CheckpointInterval between published checkpoints.
	BatchSize          uint
	BatchAge           time.Duration
	CheckpointInterval time.Duration
	WitnessTimeout     time.Duration
	HTTPClient         *http.Client
}

// Defaults for zero Config fields.
const (
	DefaultBatchSize          = 512
	DefaultBatchAge           = 500 * time.Millisecond // each batch costs fsyncs of tiles and their directory: at 100 ms, a tenth of the server's CPU per event flat out (docs/replicas.md#cost)
	DefaultCheckpointInterval = time.Second            // MySQL's minimum
	DefaultWitnessTimeout     = 5 * time.Second
)

// Log is an open transparency log.
type Log struct {
	origin   string
	vkey     string
	verifier note.Verifier
	add      tessera.AddFn
	reader   tessera.LogReader
	shutdown func(context.Context) error
	db       *sql.DB
	cancel   context.CancelFunc
}

// Open opens (creating if need be) the log.
func Open(ctx context.Context, cfg Config) (*Log, error) {
	if cfg.BatchSize == 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.BatchAge == 0 {
		cfg.BatchAge = DefaultBatchAge
	}
	if cfg.CheckpointInterval == 0 {
		cfg.CheckpointInterval = DefaultCheckpointInterval
	}
	if cfg.WitnessTimeout == 0 {
		cfg.WitnessTimeout = DefaultWitnessTimeout
	}
	signer, vkey, err := NewSigner(cfg.Origin, cfg.Key)
	if err != nil {
		return nil, err
	}
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, err
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(cfg.BatchSize, cfg.BatchAge).
		WithCheckpointInterval(cfg.CheckpointInterval).
		// An unchanged checkpoint is signed again now and then, so that
		// witnesses that were down catch up without new appends.
		WithCheckpointRepublishInterval(max(cfg.CheckpointInterval, 5*time.Second))
	if len(cfg.Witnesses) > 0 {
		wg, err := tessera.NewWitnessGroupFromPolicy(cfg.Witnesses)
		if err != nil {
			return nil, fmt.Errorf("witness policy: %v", err)
		}
		// FailOpen false: a checkpoint the quorum has not cosigned is not
		// published. Appends are sequenced and integrated regardless;
		// only their proofs wait for the witnesses.
		opts.WithWitnesses(wg, &tessera.WitnessOptions{Timeout: cfg.WitnessTimeout})
	}
	l := &Log{origin: cfg.Origin, vkey: vkey, verifier: verifier}
	ctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	var drv tessera.Driver
	switch cfg.Driver {
	case "", POSIX:
		// The client only talks to witnesses: their answers are bounded.
		drv, err = posixDriver(ctx, cfg.Dir, limitBodies(cfg.HTTPClient, MaxWitnessAnswer))
	case MySQL:
		if l.db, err = openDB(ctx, cfg.DSN); err == nil {
			drv, err = mysql.New(ctx, l.db)
		}
	default:
		err = fmt.Errorf("unknown log driver %q: want %s or %s", cfg.Driver, POSIX, MySQL)
	}
	if err != nil {
		l.cancel()
		return nil, err
	}
	app, shutdown, reader, err := tessera.NewAppender(ctx, drv, opts)
	// Replicas started together on an empty database each create the
	// log's first tree; MariaDB then answers all but one with a deadlock
	// (Error 1213), which the transaction that lost may simply run again.
	for try := 1; err != nil && cfg.Driver == MySQL && isDeadlock(err) && try < 5; try++ {
		time.Sleep(time.Duration(try) * 200 * time.Millisecond)
		app, shutdown, reader, err = tessera.NewAppender(ctx, drv, opts)
	}
	if err != nil {
		l.cancel()
		return nil, err
	}
	l.add, l.reader, l.shutdown = app.Add, reader, shutdown
	return l, nil
}

// isDeadlock: MariaDB/MySQL's ER_LOCK_DEADLOCK, the transaction rolled
// back and safe to run again.
func isDeadlock(err error) bool {
	var me *mysqldrv.MySQLError
	return errors.As(err, &me) && me.Number == 1213 || strings.Contains(err.Error(), "Error 1213")
}

// NewSigner returns the log's checkpoint signer for key under origin, and
// its verifier key (what a tlog-policy's log line names).
func NewSigner(origin string, key ed25519.PrivateKey) (note.Signer, string, error) {
	vkey, err := note.NewEd25519VerifierKey(origin, key.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, "", err
	}
	// A signer key is PRIVATE+KEY+name+hash+base64(0x01 || seed); the
	// hash is the verifier key's.
	parts := strings.SplitN(vkey, "+", 3)
	s, err := note.NewSigner("PRIVATE+KEY+" + origin + "+" + parts[1] + "+" +
		base64.StdEncoding.EncodeToString(append([]byte{1}, key.Seed()...)))
	return s, vkey, err
}

// Origin is the log's origin.
func (l *Log) Origin() string { return l.origin }

// VerifierKey is the log's note verifier key.
func (l *Log) VerifierKey() string { return l.vkey }

// Add queues a leaf. The future resolves once the leaf has an index that
// storage keeps durably; it may fail with tessera.ErrPushback when the
// log is behind.
func (l *Log) Add(ctx context.Context, leaf []byte) tessera.IndexFuture {
	return l.add(ctx, tessera.NewEntry(leaf))
}

// AddWait adds a leaf and waits for its index, retrying while the log
// pushes back.
func (l *Log) AddWait(ctx context.Context, leaf []byte) (uint64, error) {
	for {
		idx, err := l.Add(ctx, leaf)()
		if err == nil {
			return idx.Index, nil
		}
		if !errors.Is(err, tessera.ErrPushback) {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Checkpoint is the latest published checkpoint (a signed note, with the
// cosignatures it was published with).
func (l *Log) Checkpoint(ctx context.Context) ([]byte, error) { return l.reader.ReadCheckpoint(ctx) }

// Size is the tree size of the latest published checkpoint (0 before the
// first).
func (l *Log) Size(ctx context.Context) (int64, []byte, error) {
	cp, err := l.reader.ReadCheckpoint(ctx)
	if err != nil || cp == nil {
		return 0, nil, ignoreMissing(err)
	}
	t, err := logproof.ParseTree(cp)
	if err != nil {
		return 0, nil, err
	}
	return t.Size, cp, nil
}

// Prove waits until a published checkpoint covers leaf index, then
// returns the leaf's tlog-proof against it, checked before it is returned.
func (l *Log) Prove(ctx context.Context, index uint64, leaf []byte) ([]byte, error) {
	for {
		size, cp, err := l.Size(ctx)
		if err != nil {
			return nil, err
		}
		if size > int64(index) {
			return l.proveAt(ctx, index, leaf, cp)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (l *Log) proveAt(ctx context.Context, index uint64, leaf, cp []byte) ([]byte, error) {
	t, err := logproof.ParseTree(cp)
	if err != nil {
		return nil, err
	}
	pb, err := client.NewProofBuilder(ctx, uint64(t.Size), l.reader.ReadTile)
	if err != nil {
		return nil, err
	}
	raw, err := pb.InclusionProof(ctx, index)
	if err != nil {
		return nil, err
	}
	p := logproof.Proof{Extra: leaf, Index: int64(index), Checkpoint: cp}
	for _, h := range raw {
		var x tlog.Hash
		if len(h) != len(x) {
			return nil, fmt.Errorf("proof hash of %d bytes", len(h))
		}
		copy(x[:], h)
		p.Hashes = append(p.Hashes, x)
	}
	if err := tlog.CheckRecord(p.Hashes, t.Size, t.Root, p.Index, logproof.LeafHash(leaf)); err != nil {
		return nil, fmt.Errorf("the log's own proof for leaf %d does not verify: %v", index, err)
	}
	return p.Format(), nil
}

// ConsistencyProof returns the proof that the tree of size older is a
// prefix of the tree of size newer, built from the log's tiles.
func (l *Log) ConsistencyProof(ctx context.Context, older, newer uint64) ([]tlog.Hash, error) {
	return ConsistencyProof(ctx, l.reader.ReadTile, older, newer)
}

// ConsistencyProof builds a consistency proof from any tile source (the
// log's storage, a tiles directory, a tlog-tiles URL).
func ConsistencyProof(ctx context.Context, tiles client.TileFetcherFunc, older, newer uint64) ([]tlog.Hash, error) {
	if older == 0 || older == newer {
		return nil, nil
	}
	pb, err := client.NewProofBuilder(ctx, newer, tiles)
	if err != nil {
		return nil, err
	}
	raw, err := pb.ConsistencyProof(ctx, older, newer)
	if err != nil {
		return nil, err
	}
	out := make([]tlog.Hash, len(raw))
	for i, h := range raw {
		if len(h) != tlog.HashSize {
			return nil, fmt.Errorf("proof hash of %d bytes", len(h))
		}
		copy(out[i][:], h)
	}
	return out, nil
}

// Close waits for every leaf whose Add returned to be integrated and
// published (bounded by ctx), then closes storage.
func (l *Log) Close(ctx context.Context) error {
	err := l.shutdown(ctx)
	l.cancel()
	if l.db != nil {
		err = errors.Join(err, l.db.Close())
	}
	return err
}
