package main

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/translog"
)

// logFlags choose the transparency log (docs/log.md).
type logFlags struct {
	driver, dsn, witnesses, dir string
	batch                       uint
	batchAge, interval          time.Duration
}

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.driver, "log", translog.POSIX, "transparency log storage: posix (tiles in DATA/log), mysql (--log-dsn), or none")
	fs.StringVar(&l.dir, "log-dir", "", "`DIR` of the posix log's tiles (default DATA/log; another disk spares the journal the log's fsyncs)")
	fs.StringVar(&l.dsn, "log-dsn", "", "MySQL/MariaDB `DSN` for --log mysql, user:pass@tcp(host:port)/db (default $LOGBOOK_LOG_DSN)")
	fs.StringVar(&l.witnesses, "log-witnesses", "", "C2SP tlog-policy `FILE` naming the witnesses (with URLs) that cosign each log checkpoint before it is published")
	fs.UintVar(&l.batch, "log-batch", translog.DefaultBatchSize, "most leaves per sequencing batch")
	fs.DurationVar(&l.batchAge, "log-batch-age", translog.DefaultBatchAge, "longest a leaf waits for its batch")
	fs.DurationVar(&l.interval, "log-checkpoint-interval", translog.DefaultCheckpointInterval, "time between published log checkpoints (at least 1s on mysql)")
}

// logOrigin is the log's origin: the server's name and /log, so that the
// log's checkpoints and the sessions' never share a note name.
func logOrigin(name string) string { return name + "/log" }

func (l *logFlags) open(ctx context.Context, data, name string, key ed25519.PrivateKey, getenv func(string) string) (*translog.Log, error) {
	if l.driver == "none" {
		return nil, nil
	}
	dir := l.dir
	if dir == "" {
		dir = filepath.Join(data, "log")
	}
	cfg := translog.Config{Driver: l.driver, Dir: dir, DSN: l.dsn, Origin: logOrigin(name), Key: key,
		BatchSize: l.batch, BatchAge: l.batchAge, CheckpointInterval: l.interval}
	if cfg.DSN == "" {
		cfg.DSN = getenv("LOGBOOK_LOG_DSN")
	}
	if l.witnesses != "" {
		b, err := readlimit.Small(l.witnesses, readlimit.Policy)
		if err != nil {
			return nil, err
		}
		cfg.Witnesses = b
	}
	if l.driver == translog.POSIX {
		if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
			return nil, err
		}
	}
	tl, err := translog.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("transparency log (%s): %w", l.driver, err)
	}
	return tl, nil
}

// closeLog integrates and publishes what was queued (at most 30 s).
func closeLog(tl *translog.Log, log interface{ Error(string, ...any) }) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tl.Close(ctx); err != nil {
		log.Error("closing the transparency log", "error", err.Error())
	}
}
