// Command logbook-server records agent sessions off the agent's reach: it
// takes harness hook payloads over HTTP, appends them into its own data
// directory with the same code as record-step, signs a checkpoint after
// every append, and seals each session with its own key at SessionEnd
// (docs/server.md, docs/checkpoint.md).
//
//	logbook-server --data DIR --key FILE [--name ORIGIN] [--listen ADDR]
//	               [--token-file FILE] [--read-token-file FILE | --open-reads]
//	               [--tls-cert PEM --tls-key PEM [--client-ca PEM]]
//	logbook-server --new-key FILE [--name ORIGIN]
//	logbook-server --new-token FILE
//	logbook-server --verifier-key --key FILE [--name ORIGIN]
//	logbook-server enroll --tenant T --developer NAME [--ttl 24h]
//	logbook-server credentials list|revoke ID
//
// It listens on 127.0.0.1:8421 by default. Any other address needs a
// bearer token (--token-file, or $LOGBOOK_SERVER_TOKEN) or client
// certificates (--client-ca). SIGTERM and SIGINT stop it after the
// requests in progress are answered. Exit status: 0 stopped cleanly, 1 it
// failed, 2 usage.
package main

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/fleet/fleetcmd"
	"github.com/logbook-project/logbook/internal/indexcli"
	"github.com/logbook-project/logbook/internal/keyperm"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/web"
)

func main() {
	// Each event makes some 30 KB of garbage over a live heap of a few
	// MB: collecting at 5x the live heap rather than 2x saves a fifth of
	// the CPU at thousands of events a second (BenchmarkServerThroughput),
	// and the soft limit brings the collector back long before memory
	// runs short (request bodies are bounded: see internal/server).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(768 << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

const synopsis = `logbook-server --data DIR --key FILE [--name ORIGIN] [--listen ADDR] [--token-file FILE]
               [--read-token-file FILE | --open-reads]
               [--tls-cert PEM --tls-key PEM [--client-ca PEM]] [--log-level LEVEL]
               [--policy SIGNED.json --policy-key PUB] [--db DSN] [--fleet] [--oidc-config FILE]
               [--index sqlite|mysql|none [--index-dsn DSN]]
logbook-server --reindex --data DIR [--index sqlite|mysql [--index-dsn DSN]]
logbook-server sessions|coverage|retention|hold --server URL … (logbook-server sessions --help)
logbook-server --new-key FILE [--name ORIGIN]
logbook-server --new-token FILE
logbook-server --verifier-key --key FILE [--name ORIGIN]
logbook-server enroll|credentials ...   (docs/fleet.md; --help of each)`

type config struct {
	listen, data, keyFile, name, tokenFile string
	managed, readTokenFile                 string
	openReads                              bool
	tlsCert, tlsKey, clientCA, logLevel    string
	fsync                                  string
	fsyncWindow                            time.Duration
	newKey, newToken, rotateKey            string
	verifierKey                            bool
	maxHook, maxVerify                     int64
	minFree                                int64
	log                                    logFlags
	db                                     dbFlag
	policy                                 policyFlags
	index                                  indexcli.Flags
	fleet                                  fleetcmd.Flags
	console                                server.ConsoleFlags
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && indexcli.IsCommand(args[0]) {
		return indexcli.Run(args, stdout, stderr, getenv) // sessions, coverage, retention, hold: docs/index.md
	}
	if len(args) > 0 && slices.Contains(fleetcmd.Subcommands, args[0]) {
		return fleetcmd.Run(args, stdout, stderr, getenv, time.Now())
	}
	var c config
	fs := flag.NewFlagSet("logbook-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.managed, "managed-settings", "", "the harness's managed settings `FILE` (Claude Code: /etc/claude-code/managed-settings.json): after each session's first event, a logbook.hooks note says whether the hooks come from it (root's, allowManagedHooksOnly, logbook's hooks in it), for logbook-verify --require-managed")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8421", "`ADDR` to listen on: HOST:PORT, or unix:/PATH, a Unix socket in a folder only the server's user can write (no other user can take it while the server is down; record-step --server unix:/PATH checks who answers); a non-loopback address needs --token-file or --client-ca")
	fs.StringVar(&c.data, "data", "", "data `DIR` for journals, checkpoints and records (default $STATE_DIRECTORY, as systemd sets it, else ./logbook-server-data)")
	fs.StringVar(&c.keyFile, "key", "", "the server's PKCS#8 PEM Ed25519 key `FILE`: signs checkpoints and seals (default $LOGBOOK_SERVER_KEY_FILE)")
	fs.StringVar(&c.name, "name", "", "the server's `ORIGIN` name in checkpoints (default logbook-server/HOSTNAME)")
	fs.StringVar(&c.readTokenFile, "read-token-file", "", "`FILE` holding the bearer token the read routes (a session's record, checkpoint and tlog-proof, the log's tiles) need instead of --token-file's, which the agent's hooks send: without it, reads need the hook token (which the agent holds) and, with no token at all, they are refused (default $LOGBOOK_SERVER_READ_TOKEN)")
	fs.BoolVar(&c.openReads, "open-reads", false, "serve the read routes without a token: anyone who reaches the server, the agent included, reads every session (warned at start; not with a token of any kind)")
	fs.StringVar(&c.tokenFile, "token-file", "", "`FILE` holding the bearer token every request but /healthz and the page must send (default $LOGBOOK_SERVER_TOKEN)")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "serve HTTPS with this certificate chain `PEM`")
	fs.StringVar(&c.tlsKey, "tls-key", "", "the TLS certificate's private key `PEM`")
	fs.StringVar(&c.clientCA, "client-ca", "", "require client certificates that chain to these roots `PEM` (mTLS; needs --tls-cert)")
	fs.StringVar(&c.logLevel, "log-level", "info", "debug (one line per event), info, warn or error")
	fs.Int64Var(&c.maxHook, "max-hook-body", server.DefaultMaxHookBody, "largest hook payload in `BYTES`")
	fs.StringVar(&c.fsync, "fsync", server.FsyncGroup, "group: answer an event once it is fsynced, appends that arrive together sharing one fsync (a power loss loses nothing acknowledged); background: once it is written to the journal, the same fsync following at once in the background (a kill loses nothing acknowledged, a power loss at most what was answered in the last --fsync-window; checkpoints still only over synced steps); off: once it is written, with no fsync (a power loss can lose the last seconds)")
	fs.DurationVar(&c.fsyncWindow, "fsync-window", server.DefaultFsyncWindow, "with --fsync background: no event is answered while a write older than `DURATION` is not yet on disk")
	fs.Int64Var(&c.maxVerify, "max-verify-body", server.DefaultMaxVerifyBody, "largest POST /v1/verify body in `BYTES`")
	fs.Int64Var(&c.minFree, "min-free", server.DefaultMinFree, "refuse new sessions (DISK_LOW, logged) while the data directory's file system has less than `BYTES` free; the sessions already open go on into it, and events a full disk makes the server refuse are named in their session's record (0: no check)")
	fs.StringVar(&c.newKey, "new-key", "", "write a new key pair to `FILE` (0600), FILE.pub (SPKI) and FILE.vkey (note verifier key for --name), then exit")
	fs.StringVar(&c.newToken, "new-token", "", "write a new random bearer token to `FILE` (0600), for --token-file, then exit")
	c.policy.register(fs)
	fs.StringVar(&c.rotateKey, "rotate-key", "", "hand the server over from --key to the new key `FILE` (PKCS#8 PEM, 0600): both sign a rotation note appended to DATA/key-rotations (docs/key-rotation.md), then exit; restart with --key FILE")
	fs.BoolVar(&c.verifierKey, "verifier-key", false, "print the note verifier key of --key under --name (what logbook-verify --checkpoint-key takes), then exit")
	c.log.register(fs)
	c.index.Register(fs)
	c.db.register(fs)
	c.fleet.Register(fs)
	c.console.Register(fs)
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	if err := c.db.settle(fs, &c.log, getenv); err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 2
	}
	c.index.Shared(fs, c.db.dsn)
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logbook-server: unexpected argument %q (run 'logbook-server --help' for usage)\n", fs.Arg(0))
		return 2
	}
	named := c.name != ""
	if c.name == "" {
		host, _ := os.Hostname()
		c.name = "logbook-server/" + host
	}
	if !checkpoint.ValidOrigin(c.name) {
		fmt.Fprintf(stderr, "logbook-server: --name %q: want printable ASCII without spaces or '+'\n", c.name)
		return 2
	}
	if c.newToken != "" {
		return newToken(c.newToken, stdout, stderr)
	}
	if c.newKey != "" {
		return newKey(c.newKey, c.name, stdout, stderr)
	}
	if c.index.Reindex {
		return c.index.RunReindex(ctx, dataDir(c, getenv), c.log.driver != "none", getenv, stdout, stderr)
	}
	if c.keyFile == "" {
		c.keyFile = getenv("LOGBOOK_SERVER_KEY_FILE")
	}
	if c.keyFile == "" {
		fmt.Fprintln(stderr, "logbook-server: --key FILE is required (make one with --new-key FILE)")
		return 2
	}
	// A key others can read proves nothing: whoever reads it signs
	// checkpoints and records as this server.
	if how, err := keyperm.Exposed(c.keyFile); err == nil && how != "" && !c.verifierKey {
		fmt.Fprintf(stderr, "logbook-server: --key %s is readable or writable by others (%s): %s\n", c.keyFile, how, keyperm.Fix)
		return 2
	}
	priv, err := keys.ReadPrivate("--key", c.keyFile)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 2
	}
	if name, warn := keyOrigin(c.keyFile, priv.Public().(ed25519.PublicKey), c.name, named); warn != "" {
		fmt.Fprintln(stderr, "logbook-server: warning:", warn)
	} else {
		c.name = name
	}
	if c.rotateKey != "" {
		return rotateKey(c, priv, stdout, stderr, getenv)
	}
	if c.verifierKey {
		vkey, _ := checkpoint.VerifierKey(c.name, priv.Public().(ed25519.PublicKey))
		fmt.Fprintln(stdout, vkey)
		return 0
	}
	return serve(ctx, c, priv, stderr, getenv)
}

func serve(ctx context.Context, c config, priv ed25519.PrivateKey, stderr io.Writer, getenv func(string) string) int {
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return fail(2, fmt.Errorf("--log-level: %v", err))
	}
	if c.fsync != server.FsyncGroup && c.fsync != server.FsyncBackground && c.fsync != server.FsyncOff {
		return fail(2, fmt.Errorf("--fsync %q: want %s, %s or %s", c.fsync, server.FsyncGroup, server.FsyncBackground, server.FsyncOff))
	}
	if c.fsyncWindow <= 0 || c.fsyncWindow > time.Minute {
		return fail(2, fmt.Errorf("--fsync-window %v: want more than 0 and at most 1m", c.fsyncWindow))
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	data, err := filepath.Abs(dataDir(c, getenv))
	if err != nil {
		return fail(2, err)
	}
	token := strings.TrimSpace(getenv("LOGBOOK_SERVER_TOKEN"))
	if c.tokenFile != "" {
		b, err := readlimit.Small(c.tokenFile, readlimit.Key)
		if err != nil {
			return fail(2, err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return fail(2, fmt.Errorf("--token-file %s is empty", c.tokenFile))
		}
	}
	tlsConf, err := tlsConfig(c)
	if err != nil {
		return fail(2, err)
	}
	readToken := strings.TrimSpace(getenv("LOGBOOK_SERVER_READ_TOKEN"))
	if c.readTokenFile != "" {
		b, err := os.ReadFile(c.readTokenFile)
		if err != nil {
			return fail(2, err)
		}
		if readToken = strings.TrimSpace(string(b)); readToken == "" {
			return fail(2, fmt.Errorf("--read-token-file %s is empty", c.readTokenFile))
		}
	}
	if readToken != "" && readToken == token {
		return fail(2, errors.New("the read token is the hook token: the agent, which sends the hook token, could read every session; give another"))
	}
	if c.openReads && (readToken != "" || token != "") {
		return fail(2, errors.New("--open-reads and a token (--read-token-file, --token-file or their variables): with a token, reads need it; give one or the other"))
	}
	if c.openReads {
		fmt.Fprintln(stderr, "logbook-server: warning: --open-reads: every session's record, checkpoints and the log's tiles are served without a token, to any local user (the agent included) and anyone who reaches the address; give --read-token-file FILE instead")
	}
	fl, err := c.fleet.Load(data, nil)
	if err != nil {
		return fail(2, err)
	}
	if !loopback(c.listen) && !isUnix(c.listen) && token == "" && fl == nil && (tlsConf == nil || tlsConf.ClientCAs == nil) {
		return fail(2, fmt.Errorf("--listen %s is not a loopback address: give a token (--token-file or $LOGBOOK_SERVER_TOKEN), --fleet, or client certificates (--client-ca), or listen on 127.0.0.1", c.listen))
	}
	raiseFileLimit()
	// Listen first: an address in use is the commonest start-up error,
	// and it must not come after the log store was created.
	ln, err := listenAddr(c.listen)
	if err != nil {
		return fail(1, err)
	}
	defer ln.Close()
	var self *recorderDesc
	if exe, err := os.Executable(); err == nil {
		if r, err := recorder.Describe("logbook-server", exe); err == nil {
			self = (*recorderDesc)(r)
		}
	}
	translog.SetLogger(log.With("component", "tessera"))
	tl, err := c.log.open(ctx, data, c.name, priv, getenv)
	if err != nil {
		return fail(1, err)
	}
	if tl != nil {
		defer closeLog(tl, log)
		log.Info("transparency log", "driver", c.log.driver, "origin", tl.Origin(), "verifierKey", tl.VerifierKey())
	}
	db, err := server.OpenDB(ctx, c.db.dsn)
	if err != nil {
		return fail(1, err)
	}
	gt, err := c.policy.load()
	if err != nil {
		return fail(1, err)
	}
	actor, err := c.policy.actor()
	if err != nil {
		return fail(1, err)
	}
	cons, err := c.console.Config()
	if err != nil {
		return fail(2, err)
	}
	ix, err := c.index.Open(ctx, data, getenv)
	if err != nil {
		return fail(1, err)
	}
	if ix != nil {
		defer ix.Close()
	}
	srv, err := server.New(server.Config{Index: ix, Dir: data, Origin: c.name, Key: priv, Token: token, ReadToken: readToken, Log: log,
		OpenReads: c.openReads, Recorder: self.journal(), Version: recorder.Version(), Web: web.Files,
		MaxHookBody: c.maxHook, MaxVerifyBody: c.maxVerify, TLog: tl, MinFree: c.minFree, Fsync: c.fsync, FsyncWindow: c.fsyncWindow, Gate: gt, ManagedSettings: c.managed, DB: db, Fleet: fl,
		Actor: actor, ApprovalWait: c.policy.wait, Console: cons, PolicyFile: c.policy.text})
	if err != nil {
		return fail(1, err)
	}
	defer srv.Close()
	if n, err := srv.Resume(); err != nil {
		return fail(1, err)
	} else if n > 0 {
		log.Info("resumed", "checkpointed", n)
	}
	hs := &http.Server{
		Handler: srv.Handler(),
		// A client that does not send its headers in 5 s, or its body in
		// 30 s, is cut off; it cannot hold a slot for long.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		TLSConfig:         tlsConf,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	switch {
	case readToken != "" || c.openReads: // fine, or said above
	case token != "":
		log.Warn("reads need the hook token", "who", "whoever holds the hook token, which the agent's hooks send", "fix", "--read-token-file FILE: the records, checkpoints and log tiles then need a token the agent does not hold")
	case fl != nil:
		log.Info("reads by role", "who", "the fleet's credentials (a developer its own sessions, an auditor its tenant's: docs/fleet.md); no shared read token")
	default:
		log.Info("reads refused", "why", "no token: the records, checkpoints and log tiles are served to no one", "fix", "--read-token-file FILE to read them over HTTP with that token (or read them in the data directory)")
	}
	vkey, _ := checkpoint.VerifierKey(c.name, priv.Public().(ed25519.PublicKey))
	log.Info("listening", "addr", ln.Addr().String(), "data", data, "origin", c.name, "verifierKey", vkey,
		"token", token != "", "readToken", readToken != "", "openReads", c.openReads, "policy", c.policy.file != "", "fsync", c.fsync, "tls", tlsConf != nil, "mtls", tlsConf != nil && tlsConf.ClientCAs != nil)
	done := make(chan error, 1)
	go func() {
		if tlsConf != nil {
			done <- hs.ServeTLS(ln, "", "")
		} else {
			done <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		return fail(1, err)
	case <-ctx.Done():
	}
	// Stop taking connections; answer every request in progress (each
	// acknowledged append is on disk before its answer) and then exit.
	log.Info("stopping")
	sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fail(1, err)
	}
	if err := srv.Close(); err != nil {
		return fail(1, err)
	}
	log.Info("stopped")
	return 0
}

// dataDir is --data, else $STATE_DIRECTORY (systemd's), else
// ./logbook-server-data.
func dataDir(c config, getenv func(string) string) string {
	return cmp.Or(c.data, getenv("STATE_DIRECTORY"), "logbook-server-data")
}

func tlsConfig(c config) (*tls.Config, error) {
	if c.tlsCert == "" && c.tlsKey == "" {
		if c.clientCA != "" {
			return nil, errors.New("--client-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
	if err != nil {
		return nil, err
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.clientCA != "" {
		pem, err := readlimit.Small(c.clientCA, readlimit.Roots)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--client-ca %s: no certificate", c.clientCA)
		}
		conf.ClientCAs, conf.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return conf, nil
}

// loopback reports whether addr's host is a loopback IP or "localhost".
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func newKey(file, name string, stdout, stderr io.Writer) int {
	for _, f := range []string{file, file + ".pub", file + ".vkey"} {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(stderr, "logbook-server: %s exists; refusing to overwrite a key\n", f)
			return 1
		}
	}
	privPEM, pubPEM, err := keys.Generate()
	if err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 1
	}
	priv, _ := keys.ParsePrivateKeyPEM(privPEM)
	vkey, _ := checkpoint.VerifierKey(name, priv.Public().(ed25519.PublicKey))
	if err = os.MkdirAll(filepath.Dir(file), 0o700); err == nil {
		err = durable.WriteFileMode(file, privPEM, 0o600)
	}
	if err == nil {
		err = durable.WriteFileMode(file+".pub", pubPEM, 0o644)
	}
	if err == nil {
		err = durable.WriteFileMode(file+".vkey", []byte(vkey+"\n"), 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (private, PKCS#8, mode 0600), %s.pub (SPKI: logbook-verify --pubkey) and %s.vkey (%s: logbook-verify --checkpoint-key)\n", file, file, file, vkey)
	return 0
}

func newToken(file string, stdout, stderr io.Writer) int {
	if _, err := os.Stat(file); err == nil {
		fmt.Fprintf(stderr, "logbook-server: %s exists; refusing to overwrite a token\n", file)
		return 1
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 1
	}
	if err := durable.WriteFileMode(file, []byte(hex.EncodeToString(b)+"\n"), 0o600); err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 1
	}
	// The same token serves either flag: say both, so that a reviewers'
	// read token is not handed to the agent's hooks by mistake.
	fmt.Fprintf(stdout, "wrote %s (mode 0600): as --token-file, give it to the harnesses' hooks as $LOGBOOK_SERVER_TOKEN; as --read-token-file, to the reviewers only (never to the agent), as $LOGBOOK_SERVER_READ_TOKEN\n", file)
	return 0
}
