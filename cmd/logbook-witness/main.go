// Command logbook-witness is a C2SP tlog-witness for logbook-server's
// transparency log (docs/log.md): it cosigns a log checkpoint only when the
// log's key signed it and it extends, by a consistency proof, the last
// checkpoint it cosigned for that log. A log that went backwards or forked
// is refused.
//
//	logbook-witness --state DIR --key FILE --log-key VKEY... [--listen ADDR]
//	logbook-witness --new-key FILE --name NAME
//
// Exit status: 0 stopped cleanly (SIGTERM, SIGINT), 1 it failed, 2 usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/witness"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const synopsis = `logbook-witness --state DIR --key FILE --log-key VKEY... [--listen ADDR]
logbook-witness --new-key FILE --name NAME`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logbook-witness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8422", "`ADDR` to serve POST /add-checkpoint on")
	state := fs.String("state", "", "`DIR` keeping the last cosigned checkpoint of each log (required)")
	keyFile := fs.String("key", "", "the witness's private note key `FILE` (from --new-key)")
	var logKeys cli.List
	fs.Var(&logKeys, "log-key", "a log's note verifier key `VKEY` (or @FILE holding one per line); its name is the log's origin (repeatable)")
	newKey := fs.String("new-key", "", "write a new witness key to `FILE` (0600) and its cosignature verifier key to FILE.vkey, then exit")
	name := fs.String("name", "", "the witness's `NAME` in its key and cosignatures (with --new-key)")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	usage := func(msg string) int { fmt.Fprintln(stderr, "logbook-witness:", msg); return 2 }
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	case *newKey != "":
		if *name == "" {
			return usage("--new-key needs --name")
		}
		return writeKey(*newKey, *name, stdout, stderr)
	case *state == "" || *keyFile == "" || len(logKeys) == 0:
		return usage("--state, --key and at least one --log-key are required (make a key with --new-key FILE --name NAME)")
	}
	skey, err := readlimit.Small(*keyFile, readlimit.Key)
	if err != nil {
		return usage(err.Error())
	}
	signer, err := witness.NewSigner(string(skey))
	if err != nil {
		return usage(fmt.Sprintf("--key %s: %v", *keyFile, err))
	}
	var vkeys []string
	for _, k := range logKeys {
		if f, ok := strings.CutPrefix(k, "@"); ok {
			b, err := readlimit.Small(f, readlimit.Key)
			if err != nil {
				return usage(err.Error())
			}
			vkeys = append(vkeys, strings.Fields(string(b))...)
			continue
		}
		vkeys = append(vkeys, k)
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	w, err := witness.New(*state, signer, vkeys, log)
	if err != nil {
		return usage(err.Error())
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-witness:", err)
		return 1
	}
	hs := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	log.Info("listening", "addr", ln.Addr().String(), "name", signer.Name(), "logs", len(vkeys))
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintln(stderr, "logbook-witness:", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return 1
	}
	return 0
}

func writeKey(file, name string, stdout, stderr io.Writer) int {
	for _, f := range []string{file, file + ".vkey"} {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(stderr, "logbook-witness: %s exists; refusing to overwrite a key\n", f)
			return 1
		}
	}
	skey, vkey, err := witness.GenerateKey(name)
	if err == nil {
		err = durable.WriteFileMode(file, []byte(skey+"\n"), 0o600)
	}
	if err == nil {
		err = durable.WriteFileMode(file+".vkey", []byte(vkey+"\n"), 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "logbook-witness:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (private, mode 0600) and %s.vkey: %s\n", file, file, vkey)
	return 0
}
