package main

import (
	"context"
	"errors"
	"flag"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/translog"
)

// dbFlag is --db: the database replicas share (docs/replicas.md).
type dbFlag struct{ dsn string }

func (d *dbFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dsn, "db", "", "MariaDB/MySQL `DSN` (user:pass@tcp(host:port)/db) shared by every replica of this server: journals, checkpoints, records and, unless --log says otherwise, the transparency log are kept there, and any replica records and serves any session; --data is then this replica's working copy (default $LOGBOOK_DB_DSN; docs/replicas.md)")
}

// settle fills --db from the environment and makes the log follow it: a
// replica's log is the shared one (--log mysql on the same database by
// default); a posix log per replica would be several logs under one name.
func (d *dbFlag) settle(fs *flag.FlagSet, l *logFlags, getenv func(string) string) error {
	if d.dsn == "" {
		d.dsn = getenv("LOGBOOK_DB_DSN")
	}
	if d.dsn == "" {
		return nil
	}
	logSet := false
	fs.Visit(func(f *flag.Flag) { logSet = logSet || f.Name == "log" })
	if !logSet {
		l.driver = translog.MySQL
	}
	if l.driver == translog.POSIX {
		return errors.New("--log posix with --db: each replica would keep a log of its own under one origin; use --log mysql (the default with --db) or --log none")
	}
	if l.driver == translog.MySQL && l.dsn == "" && getenv("LOGBOOK_LOG_DSN") == "" {
		l.dsn = d.dsn
	}
	return nil
}

func (d *dbFlag) open(ctx context.Context) (*dbstore.Store, error) {
	if d.dsn == "" {
		return nil, nil
	}
	return dbstore.Open(ctx, d.dsn)
}
