// Package server is logbook-server's HTTP side: it takes harness hook
// payloads over HTTP (Claude Code's "type": "http" hooks, or record-step
// --server forwarding for the others), appends them with the recorder's
// own code path into its data directory, signs a checkpoint after every
// append, and seals a session with its own key at SessionEnd. The agent
// never holds the files or the key (docs/server.md).
//
// Routes:
//
//	POST /v1/hooks[/{harness}][?event=NAME]  one hook payload; 200 and an empty body when recorded (signed when the request has X-Logbook-Nonce: answer.go)
//	GET  /v1/sessions/{id}/checkpoint        the session's latest signed checkpoint (text/plain); every read route needs a token (readAuth)
//	GET  /v1/sessions/{id}/record            the sealed record (404 until SessionEnd)
//	GET  /v1/sessions/{id}/record-checkpoint the checkpoint that record was sealed with
//	GET  /v1/key                             the server's name, key id and public keys, the keys it rotated out and the rotation notes
//	GET  /.well-known/runback-audit-key.pem  the key in force as SPKI PEM (no token needed), where runback publishes its key
//	POST /v1/verify                          a record (or a runback cassette) in, the logbook-verify --json object out
//	POST /api/audit/verify                   the same, at runback's path
//	GET  /healthz                            liveness
//	GET  /                                   the in-browser checker
//
// Every error is a JSON object {"error": CODE, "detail": TEXT} with the
// status its code implies (errors.go).
package server

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/logbook-project/logbook/internal/gitstep"

	"golang.org/x/sync/semaphore"

	"github.com/logbook-project/logbook/internal/approval"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/console"
	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/rotation"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/wal"
	"github.com/logbook-project/logbook/web"
)

// Config is everything a Server needs; the command fills it from flags.
type Config struct {
	Dir    string             // data directory (created 0700)
	Origin string             // the server's name in its checkpoints
	Key    ed25519.PrivateKey // signs checkpoints and seals
	// Token, when not empty, is required as "Authorization: Bearer TOKEN"
	// on every route but /healthz and the page.
	Token string
	// ReadToken, when not empty, is the token the read routes (a
	// session's record, checkpoint and tlog-proof, the log's tiles) need
	// instead of Token: the hooks send Token from the agent's
	// environment, so with Token alone the agent could read every
	// session's record. Empty: reads need Token, as every other route;
	// with no Token either, reads are refused (UNAUTHORIZED, naming the
	// fix) unless OpenReads.
	ReadToken string
	// OpenReads serves the read routes without a token when neither
	// ReadToken nor Token is set (logbook-server --open-reads): anyone who
	// reaches the server, the agent included, then reads every session.
	OpenReads bool
	Log       *slog.Logger
	Now       func() time.Time
	// Recorder names this program as session.recorder of the sessions it
	// creates; nil names none.
	Recorder *format.Recorder
	Version  string
	Web      fs.FS // the in-browser checker; nil serves no page
	// MaxHookBody and MaxVerifyBody bound request bodies (413 above).
	MaxHookBody, MaxVerifyBody int64
	// Appends bounds the hook requests handled at once; more wait.
	Appends int
	// TLog, when not nil, is the transparency log every checkpoint is
	// appended to (tlog.go, docs/log.md).
	TLog *translog.Log
	// ManagedSettings, when not "", is the harness's managed settings
	// file; each session's first event is followed by a note saying
	// whether the hooks come from it (managed.go).
	ManagedSettings string
	// Fsync is FsyncGroup (or ""), FsyncBackground or FsyncOff: see those.
	Fsync string
	// FsyncWindow bounds, with FsyncBackground, how old a write may be
	// and not yet be on disk when the server answers (0:
	// DefaultFsyncWindow).
	FsyncWindow time.Duration
	// SyncPath, when not nil, replaces the group commit's fsync of one
	// path (durable.Group.SyncPath): the power-cut test notes there what
	// was synced.
	SyncPath func(path string) error
	// MinFree is the free space, in bytes, under which the server
	// refuses new sessions (DISK_LOW) and goes on recording the open ones
	// into it (space.go); 0 checks nothing. The command's default is
	// DefaultMinFree.
	MinFree int64
	// Gate, when not nil, is the organization policy every PreToolUse
	// (and PermissionRequest) is decided by: its gate step is recorded
	// before the event and its decision is the hook's answer (gate.go).
	Gate *gate.Gate
	// ApprovalWait is the longest a call the policy holds waits for an
	// approver (approvals.go); 0: DefaultApprovalWait. The hook's own
	// wait (WaitHeader) bounds it further.
	ApprovalWait time.Duration
	// Actor, when not nil, says who a request proves to be and their
	// roles: the approvals' routes need an approver, and a held call
	// names its requester (approvals.go). nil: no approver can decide.
	Actor Actor
	// PolicyFile is the signed policy file Gate was loaded from, for the
	// console's export (export.go); nil: none given.
	PolicyFile []byte
	// Console, when not nil, is the web console under /ui/ (console.go,
	// docs/console.md); it needs Fleet with an OIDC issuer.
	Console *console.Config
	// Index, when not nil, is the session index the server feeds and
	// searches (index.go, docs/index.md); IndexWho, Enrolled and
	// Authorize are the fleet identity's seams into it (nil: the stubs
	// index.go names).
	Index     *index.Index
	IndexWho  Who
	Enrolled  func(tenant string) ([]string, error)
	Authorize Authorize
	// DB, when not nil, is the database this server shares with its
	// replicas: every session's journal, checkpoints and record are
	// committed there before an event is answered, and read from there
	// (replica.go, docs/replicas.md). Dir is then this replica's working
	// copy, and Fsync does not apply (the database's COMMIT is the
	// durable write).
	DB *dbstore.Store
	// Fleet, when not nil, tells the fleet's principals apart and checks
	// what each may do (fleet.go, docs/fleet.md).
	Fleet *Fleet
}

// Fsync modes.
const (
	// FsyncGroup answers an event only once its step is fsynced, in the
	// write-ahead log every session's appends share (wal.go): appends
	// that arrive together share one fsync (group commit, durable.Group),
	// so a power loss loses nothing acknowledged. The default.
	FsyncGroup = "group"
	// FsyncBackground answers an event once its steps (a gated call's
	// gate step, then its own) are written to the journal, in order, and
	// put in the group commit's next batch, which a background leader
	// fsyncs at once: a killed server loses nothing acknowledged; a power
	// loss can lose the events answered in the last FsyncWindow (the
	// server stops answering while a write older than that is not on
	// disk). Checkpoints are still served, sealed and logged only once
	// their steps are on disk. After a failed fsync every event is
	// answered SYNC_FAILED until the server is restarted.
	FsyncBackground = "background"
	// FsyncOff answers once the bytes are written: a killed server loses
	// nothing acknowledged, a power loss can lose the last seconds.
	FsyncOff = "off"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxHookBody   = recorder.MaxPayload // record-step refuses a larger payload too
	DefaultMaxVerifyBody = 8 << 20
	DefaultAppends       = 64
	// DefaultFsyncWindow: with FsyncBackground, no answer while a write
	// older than this is not on disk.
	// One second: the fsync of a batch of many journals takes tens of
	// milliseconds at its tail on a busy disk, and 100 ms held 1% of
	// answers (docs/performance.md); Linux itself leaves the agent's own
	// dirty pages unwritten for up to 30 s.
	DefaultFsyncWindow = time.Second
)

// Server handles the routes above. It is safe for concurrent use.
type Server struct {
	cfg          Config
	files        *web.Cached // cfg.Web, as served
	signer       *checkpoint.Signer
	rules        *redact.Redactor // DIR/redact.json as loaded at start; nil: the built-in rules
	redactDigest string
	slots        chan struct{}       // hook requests in progress
	bigBytes     *semaphore.Weighted // bytes of the bodies over smallBody in flight (bigBodyBudget)
	verifySlots  chan struct{}
	mu           sync.Mutex
	sessions     map[string]*session
	used         uint64 // counts session lookups, under mu
	tl           tlogState
	commit       *durable.Group // nil: FsyncOff
	wal          *wal.Log       // with commit, and no DB (wal.go)
	walStop      chan struct{}
	walDone      chan struct{}
	walClosed    sync.Once
	rotations    []rotation.Rotation // DATA/key-rotations: the keys before cfg.Key
	// owed are the resumed sessions whose seal runs after their
	// SessionEnd's answer (sealafter.go): id → the SessionEnd's time.
	owed     map[string]string
	sealing  sync.WaitGroup
	sealSlot chan struct{} // one seal after an answer at a time
	fl       fleetState
	// approvals are the held calls waiting for an approver (approvals.go).
	approvals *approval.Queue
	deciders  sync.Map // approval id → the fleet.Principal who decided it
	console   *console.Console
	ix        indexFeed // the session index's feed (index.go)
	// recording: the sessions a commit may be named in (commit.go).
	recording recordingSet
}

// session is what the server keeps for a session it has seen.
type session struct {
	mu     sync.Mutex
	log    *checkpoint.Log
	j      *journalfile.Journal // kept open between events, unlocked (hook.go's journal)
	signed int64                // the size this process last signed for (0: none yet)
	used   uint64               // Server.used when last asked for: shed closes the oldest
	sealed bool                 // DIR/ID.record.json exists and the session was not reopened: every event reseals
	// dirSynced: this process fsynced the data directory since it opened
	// the session, so the entries of its files are durable.
	dirSynced bool
	// unlogged are checkpoints signed but not yet queued for the
	// transparency log: with group commit a leaf is queued only once its
	// checkpoint is synced (sync), or a power cut could leave the log
	// holding a checkpoint whose steps the session lost, and the server
	// would sign another at the same size.
	unlogged [][]byte
	// seq is what the server saw of the hook's numbers for the session,
	// and the events it refused (seq.go).
	seq seqState
	rep replicaState // with Config.DB (replica.go)
}

// New checks cfg, creates the data directory, and loads the redaction
// configuration in force (DIR/redact.json): a file that cannot be used
// stops the server rather than letting a secret it was meant to catch
// through. The rules then apply to every session the server records.
func New(cfg Config) (*Server, error) {
	if cfg.MaxHookBody == 0 {
		cfg.MaxHookBody = DefaultMaxHookBody
	}
	if cfg.MaxVerifyBody == 0 {
		cfg.MaxVerifyBody = DefaultMaxVerifyBody
	}
	if cfg.Appends == 0 {
		cfg.Appends = DefaultAppends
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	warnDB(cfg)
	switch cfg.Fsync {
	case "":
		cfg.Fsync = FsyncGroup
	case FsyncGroup, FsyncBackground, FsyncOff:
	default:
		return nil, fmt.Errorf("fsync mode %q: want %s, %s or %s", cfg.Fsync, FsyncGroup, FsyncBackground, FsyncOff)
	}
	if cfg.FsyncWindow < 0 {
		return nil, fmt.Errorf("fsync window %v: must not be negative", cfg.FsyncWindow)
	}
	if cfg.FsyncWindow == 0 {
		cfg.FsyncWindow = DefaultFsyncWindow
	}
	if cfg.ApprovalWait == 0 {
		cfg.ApprovalWait = DefaultApprovalWait
	}
	signer, err := checkpoint.NewSigner(cfg.Origin, cfg.Key)
	if err != nil {
		return nil, err
	}
	if cfg.Fleet, err = replicaFleet(cfg.Fleet, cfg.DB); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	r, err := redact.LoadConfig(cfg.Dir)
	if err != nil {
		return nil, err
	}
	rots, err := loadRotations(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, files: web.NewCached(cfg.Web), rotations: rots, signer: signer, rules: r, redactDigest: redactDigest(cfg.Dir),
		slots: make(chan struct{}, cfg.Appends), bigBytes: semaphore.NewWeighted(bigBodyBudget(cfg.MaxHookBody)), verifySlots: make(chan struct{}, 2),
		sessions: map[string]*session{}, owed: map[string]string{}, sealSlot: make(chan struct{}, 1), approvals: approval.New()}
	if cfg.Fsync != FsyncOff && cfg.DB == nil {
		s.commit = &durable.Group{SyncPath: cfg.SyncPath}
	}
	if s.console, err = newConsole(cfg); err != nil {
		return nil, err
	}
	if cfg.DB == nil {
		if err := s.walOpen(); err != nil {
			return nil, fmt.Errorf("write-ahead log: %w", err)
		}
	}
	s.tlogInit()
	s.indexInit()
	return s, nil
}

// redactDigest is the SHA-256 of DIR/redact.json as it was loaded, or of
// no bytes when there is none (the built-in rules of this build only).
func redactDigest(dir string) string {
	b, _ := os.ReadFile(dir + string(os.PathSeparator) + redact.ConfigFile)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/hooks", s.auth(s.method("POST", s.hook)))
	mux.HandleFunc("/v1/hooks/{harness}", s.auth(s.method("POST", s.hook)))
	mux.HandleFunc(gitstep.CommitRoute, s.auth(s.method("POST", s.postCommit)))
	mux.HandleFunc(gitstep.RecordingRoute, s.auth(s.method("POST", s.postRecording)))
	mux.HandleFunc("/v1/sessions/{id}/checkpoint", s.readAuth(s.method("GET", s.getCheckpoint)))
	mux.HandleFunc("/v1/sessions/{id}/record", s.readAuth(s.method("GET", s.getRecord)))
	mux.HandleFunc("/v1/sessions/{id}/record-checkpoint", s.readAuth(s.method("GET", s.getRecordCheckpoint)))
	mux.HandleFunc("/v1/key", s.keyAuth(s.method("GET", s.getKey)))
	mux.HandleFunc("/v1/verify", s.auth(s.method("POST", s.verify)))
	mux.HandleFunc("/api/audit/verify", s.auth(s.method("POST", s.verify))) // runback's path for the same API
	mux.HandleFunc("/healthz", s.method("GET", s.health))
	s.keyRoutes(mux)
	s.logRoutes(mux)
	s.approvalRoutes(mux)
	s.consoleRoutes(mux)
	s.indexRoutes(mux)
	s.fleetRoutes(mux)
	mux.HandleFunc("/", s.page)
	return s.recover(mux)
}

// method answers 405 with a JSON error for any other method.
func (s *Server) method(m string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m && !(m == "GET" && r.Method == "HEAD") {
			w.Header().Set("Allow", m)
			s.fail(w, r, errMethod, fmt.Sprintf("%s %s: only %s", r.Method, r.URL.Path, m))
			return
		}
		h(w, r)
	}
}

// auth requires the bearer token when one is configured; the comparison
// takes the same time whatever the guess.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.Fleet != nil {
		return s.fleetAuth(h)
	}
	return s.authWith(s.cfg.Token, h)
}

// keyAuth guards GET /v1/key. What it answers is public (the keys, the
// log's verifier key, what install needs): it takes the hooks' token (or,
// with a fleet, any principal) as auth does, and the read token too, so
// that a reviewer holding only the read token can fetch the keys that
// check what it reads. With no token at all, it is open as auth is. The
// key alone, as PEM, needs no token (WellKnownKeyPath).
func (s *Server) keyAuth(h http.HandlerFunc) http.HandlerFunc {
	hooks := s.auth(h)
	if s.cfg.ReadToken == "" {
		return hooks
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equalSecret(got, s.cfg.ReadToken) {
			h(w, r)
			return
		}
		hooks(w, r)
	}
}

// readAuth guards the read routes: ReadToken when there is one, else
// Token; with neither, they are refused unless the server was told to
// serve them openly (OpenReads).
func (s *Server) readAuth(h http.HandlerFunc) http.HandlerFunc {
	switch {
	case s.cfg.Fleet != nil:
		return s.fleetRead(h)
	case s.cfg.ReadToken != "":
		return s.authWith(s.cfg.ReadToken, h)
	case s.cfg.Token != "":
		return s.auth(h)
	case s.cfg.OpenReads:
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errUnauthorized, "reads need a token, and this server has none: start it with --read-token-file FILE (or --token-file FILE) and send Authorization: Bearer TOKEN, or with --open-reads to serve every session to anyone who reaches it")
	}
}

func (s *Server) authWith(token string, h http.HandlerFunc) http.HandlerFunc {
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			s.fail(w, r, errUnauthorized, "send Authorization: Bearer TOKEN")
			return
		}
		h(w, r)
	}
}

// recover turns a panic in a handler into a logged 500 with a JSON error:
// the server never goes down over one request.
func (s *Server) recover(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.cfg.Log.Error("panic", "route", route(r), "panic", fmt.Sprint(v))
				s.fail(w, r, errInternal, "internal error")
			}
		}()
		h.ServeHTTP(w, r)
	})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "version": s.cfg.Version, "origin": s.cfg.Origin})
}

func (s *Server) getKey(w http.ResponseWriter, r *http.Request) {
	pub := s.cfg.Key.Public().(ed25519.PublicKey)
	vkey, _ := checkpoint.VerifierKey(s.cfg.Origin, pub)
	out := map[string]any{"origin": s.cfg.Origin, "keyId": s.signer.KeyID(), "verifierKey": vkey,
		"publicKey": hex.EncodeToString(pub), "redact": s.redactDigest,
		// gated: an organization policy decides calls here; install
		// makes the gated command hooks fail closed (docs/policy.md).
		"gated": s.cfg.Gate != nil,
		// approvalWait: the longest a held call waits for an approver
		// (approvals.go); install gives the gated hooks longer.
		"approvalWait": int(s.cfg.ApprovalWait / time.Second)}
	out["previousKeys"], out["rotations"] = s.previousKeys()
	if s.cfg.TLog != nil {
		out["logOrigin"], out["logVerifierKey"] = s.cfg.TLog.Origin(), s.cfg.TLog.VerifierKey()
	}
	writeJSON(w, http.StatusOK, out)
}

// page serves the in-browser checker at / and its files; anything else
// is a JSON 404.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Web == nil || r.Method != "GET" && r.Method != "HEAD" {
		if r.URL.Path == "/" && s.cfg.Web != nil {
			w.Header().Set("Allow", "GET")
			s.fail(w, r, errMethod, r.Method+" /: only GET")
			return
		}
		s.fail(w, r, errNotFound, "no route "+r.Method+" "+r.URL.Path)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	if st, err := fs.Stat(s.cfg.Web, name); err != nil || st.IsDir() {
		s.fail(w, r, errNotFound, "no route "+r.Method+" "+r.URL.Path)
		return
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'none'; form-action 'none'; base-uri 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.files.Serve(w, r, name)
}

// Close closes the checkpoint logs. Call it after the HTTP server has
// finished its requests.
func (s *Server) Close() error {
	var errs []error
	// The seals owed are written before anything closes.
	s.sealing.Wait()
	s.indexClose()
	if s.commit != nil {
		// With FsyncBackground, what was answered and not yet synced
		// is synced before the server exits.
		errs = append(errs, s.commit.Sync())
	}
	s.closeLog()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, st := range s.sessions {
		st.mu.Lock()
		errs = append(errs, st.seq.save(s.cfg.Dir, id))
		if st.log != nil {
			errs = append(errs, st.log.Close())
			st.log = nil
		}
		if st.j != nil {
			errs = append(errs, st.j.Close())
			st.j = nil
		}
		st.mu.Unlock()
		delete(s.sessions, id)
	}
	errs = append(errs, s.walClose())
	if s.cfg.DB != nil {
		errs = append(errs, s.cfg.DB.Close())
	}
	return errors.Join(errs...)
}
