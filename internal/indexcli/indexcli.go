// Package indexcli is logbook-server's side of the session index on the
// command line: the flags that choose the index a server keeps (--index,
// --index-dsn), the rebuild (--reindex), and the commands that ask a
// running server (sessions, coverage, retention, hold) over HTTP with the
// read token (docs/index.md).
package indexcli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/server"
)

// Flags choose the index a server keeps.
type Flags struct {
	Driver, DSN string
	Reindex     bool
}

// Register adds --index, --index-dsn and --reindex to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Driver, "index", "sqlite", "the session index (search, coverage, retention: docs/index.md): sqlite (DATA/index.db), mysql (--index-dsn), or none")
	fs.StringVar(&f.DSN, "index-dsn", "", "for --index sqlite a file `DSN` (default DATA/index.db), for mysql user:pass@tcp(host:port)/db (default $LOGBOOK_INDEX_DSN)")
	fs.BoolVar(&f.Reindex, "reindex", false, "rebuild the session index from DATA's journals, records and tombstones (retention policies and holds kept), then exit")
}

// Shared makes the replicas' database (logbook-server --db) the index's
// when --index was not given: every replica then feeds and searches one
// index (docs/replicas.md).
func (f *Flags) Shared(fs *flag.FlagSet, db string) {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == "index" })
	if db != "" && !set {
		f.Driver, f.DSN = "mysql", db
	}
}

// Open opens the index the flags name; nil for none.
func (f *Flags) Open(ctx context.Context, data string, getenv func(string) string) (*index.Index, error) {
	dsn := f.DSN
	switch f.Driver {
	case "none":
		return nil, nil
	case "sqlite":
		if dsn == "" {
			dsn = filepath.Join(data, "index.db")
		}
		if err := os.MkdirAll(filepath.Dir(dsn), 0o700); err != nil {
			return nil, err
		}
	case "mysql":
		if dsn == "" {
			dsn = getenv("LOGBOOK_INDEX_DSN")
		}
		if dsn == "" {
			return nil, fmt.Errorf("--index mysql needs --index-dsn DSN or $LOGBOOK_INDEX_DSN")
		}
	default:
		return nil, fmt.Errorf("--index %q: want sqlite, mysql or none", f.Driver)
	}
	ix, err := index.Open(ctx, f.Driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("session index (%s): %w", f.Driver, err)
	}
	return ix, nil
}

// RunReindex rebuilds the index of the data directory; logged says the
// server keeps a transparency log (its sessions' level).
func (f *Flags) RunReindex(ctx context.Context, data string, logged bool, getenv func(string) string, stdout, stderr io.Writer) int {
	ix, err := f.Open(ctx, data, getenv)
	if err != nil || ix == nil {
		fmt.Fprintln(stderr, "logbook-server: --reindex:", err, "(--index none keeps no index)")
		return 2
	}
	defer ix.Close()
	level := "server"
	if logged {
		level = "logged"
	}
	n, err := server.Reindex(ctx, server.Config{Dir: data, Index: ix}, level)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-server: --reindex:", err)
		return 1
	}
	fmt.Fprintf(stdout, "indexed %d sessions from %s\n", n, data)
	return 0
}
