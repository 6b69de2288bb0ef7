package main

import (
	"cmp"
	"flag"

	"github.com/logbook-project/logbook/internal/server"
)

// dbFlag is --db: the database replicas share (docs/replicas.md).
type dbFlag struct{ dsn string }

func (d *dbFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dsn, "db", "", "MariaDB/MySQL `DSN` (user:pass@tcp(host:port)/db) shared by every replica of this server: journals, checkpoints, records and, unless --log says otherwise, the transparency log are kept there, and any replica records and serves any session; --data is then this replica's working copy (default $LOGBOOK_DB_DSN; docs/replicas.md)")
}

// settle fills --db from the environment and makes the log the shared
// one (server.ReplicaLog).
func (d *dbFlag) settle(fs *flag.FlagSet, l *logFlags, getenv func(string) string) (err error) {
	if d.dsn == "" {
		d.dsn = getenv("LOGBOOK_DB_DSN")
	}
	logSet := false
	fs.Visit(func(f *flag.Flag) { logSet = logSet || f.Name == "log" })
	if d.dsn != "" {
		l.driver, l.dsn, err = server.ReplicaLog(d.dsn, l.driver, logSet, cmp.Or(l.dsn, getenv("LOGBOOK_LOG_DSN")))
	}
	return err
}
