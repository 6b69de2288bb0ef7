package translog_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/tessera/client"

	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/witness"
)

// env is a log and a witness on 127.0.0.1, both started by the test.
type env struct {
	t       *testing.T
	key     ed25519.PrivateKey
	log     *translog.Log
	cfg     translog.Config
	wit     *witness.Witness
	witSrv  *http.Server
	witAddr string
	policy  *logproof.Policy
}

const origin = "logbook.test/log"

func newEnv(t *testing.T, driver, dsn string) *env {
	t.Helper()
	seed := make([]byte, 32)
	seed[0] = 7
	e := &env{t: t, key: ed25519.NewKeyFromSeed(seed)}
	skey, wvkey, err := witness.GenerateKey("witness.test")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := witness.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	_, lvkey, _ := translog.NewSigner(origin, e.key)
	e.wit, err = witness.New(t.TempDir(), signer, []string{lvkey}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.startWitness("127.0.0.1:0")
	pol := fmt.Sprintf("log %s\nwitness w1 %s http://%s\nquorum w1\n", lvkey, wvkey, e.witAddr)
	e.policy, err = logproof.ParsePolicy([]byte(pol))
	if err != nil {
		t.Fatal(err)
	}
	e.cfg = translog.Config{Driver: driver, Dir: filepath.Join(t.TempDir(), "log"), DSN: dsn, Origin: origin, Key: e.key,
		Witnesses: []byte(pol), BatchSize: 1024, BatchAge: 10 * time.Millisecond, CheckpointInterval: time.Second, WitnessTimeout: time.Second}
	e.open()
	return e
}

func (e *env) open() {
	e.t.Helper()
	l, err := translog.Open(context.Background(), e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.log = l
}

func (e *env) close() { e.closeIn(30 * time.Second) }

func (e *env) closeIn(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := e.log.Close(ctx); err != nil {
		e.t.Logf("close: %v", err)
	}
}

func (e *env) startWitness(addr string) {
	e.t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port of a stopped witness may take a moment to free
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	e.witAddr = ln.Addr().String()
	e.witSrv = &http.Server{Handler: e.wit.Handler()}
	go e.witSrv.Serve(ln)
}

func (e *env) stopWitness() { e.witSrv.Close() }

func leaf(i int) []byte {
	return []byte(fmt.Sprintf("logbook.test\nlogbook-checkpoint/v1\nsession s%d\nsize 1\ntip %064x\n\n— logbook.test AAAA\n", i%97, i))
}

// appendN adds n leaves from 16 goroutines, as the server does: each
// queues its leaves without waiting, then resolves the futures (a
// pushed-back leaf is added again).
func (e *env) appendN(from, n int) (map[uint64]int, time.Duration) {
	start := time.Now()
	idx := make(map[uint64]int, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			type pending struct {
				i   int
				fut func() (uint64, error)
			}
			var ps []pending
			for i := from + w; i < from+n; i += 16 {
				f := e.log.Add(context.Background(), leaf(i))
				ps = append(ps, pending{i, func() (uint64, error) { x, err := f(); return x.Index, err }})
			}
			for _, p := range ps {
				x, err := p.fut()
				if err != nil {
					x, err = e.log.AddWait(context.Background(), leaf(p.i))
				}
				if err != nil {
					e.t.Error(err)
					return
				}
				mu.Lock()
				idx[x] = p.i
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	return idx, time.Since(start)
}

func (e *env) waitSize(n int64) []byte {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		size, cp, err := e.log.Size(context.Background())
		if err != nil {
			e.t.Fatal(err)
		}
		if size >= n {
			return cp
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("the log did not publish %d leaves in time", n)
	return nil
}

// testEndToEnd: 10,000 leaves appended and integrated; every leaf's proof
// verifies offline with no listener up; the witness, killed, delays
// cosigning but loses no append, and cosigns again once back; a log
// re-created behind its back, or with an edited tile, is refused.
func testEndToEnd(t *testing.T, driver, dsn string) {
	e := newEnv(t, driver, dsn)
	const n = 10000
	idx, took := e.appendN(0, n)
	if len(idx) != n {
		t.Fatalf("%d distinct indices for %d appends", len(idx), n)
	}
	cp := e.waitSize(n)
	rate := float64(n) / took.Seconds()
	t.Logf("%s: %d appends sequenced in %v: %.0f appends/s", driver, n, took.Round(time.Millisecond), rate)
	report(t, fmt.Sprintf("%s appends/s (16 writers, sequenced)", driver), fmt.Sprintf("%.0f", rate))

	// Proofs for every leaf, built while the log is up, kept as bytes.
	proofs := make([][]byte, 0, n)
	for x, i := range idx {
		p, err := e.log.Prove(bounded(t), x, leaf(i))
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, p)
	}
	// Offline: no listener up.
	e.stopWitness()
	start := time.Now()
	for _, p := range proofs {
		if r := logproof.Check(p, e.policy); r.Code != "" {
			t.Fatalf("offline check: %s %s", r.Code, r.Detail)
		}
	}
	per := time.Since(start) / time.Duration(len(proofs))
	t.Logf("%s: every one of %d proofs checks offline, %v each; proof of %d bytes", driver, len(proofs), per, len(proofs[0]))
	report(t, driver+" proof check (offline, cosigned checkpoint)", per.String())

	// The witness is down: appends go on, publishing waits.
	more, _ := e.appendN(n, 500)
	if len(more) != 500 {
		t.Fatal("appends failed while the witness was down")
	}
	time.Sleep(2500 * time.Millisecond)
	if size, _, _ := e.log.Size(context.Background()); size >= n+500 {
		t.Fatalf("published %d leaves without the witness's cosignature", size)
	}
	e.startWitness(e.witAddr)
	cp2 := e.waitSize(n + 500)
	if r := logproof.Check(mustProve(t, e, more), e.policy); r.Code != "" {
		t.Fatalf("after the witness came back: %s %s", r.Code, r.Detail)
	}
	// Consistency from the first checkpoint to the second.
	cons, err := e.log.ConsistencyProof(context.Background(), uint64(n), uint64(n+500))
	if err != nil {
		t.Fatal(err)
	}
	if code, d := logproof.Consistent(cp, cp2, cons, e.policy); code != "" {
		t.Fatalf("consistency: %s %s", code, d)
	}
	e.close()

	if driver == translog.POSIX {
		// Edit the tiles: flip a byte of every hash tile. The log's next
		// root no longer extends the cosigned one: the witness refuses
		// it, nothing new is published, and a consistency proof read
		// from the edited tiles is refused.
		filepath.Walk(filepath.Join(e.cfg.Dir, "tile"), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !strings.Contains(p, "entries") {
				if b, _ := os.ReadFile(p); len(b) > 0 {
					b[0] ^= 1
					os.WriteFile(p, b, 0o644)
				}
			}
			return nil
		})
		e.open()
		e.appendN(n*10, 100)
		time.Sleep(2500 * time.Millisecond)
		if size, _, _ := e.log.Size(context.Background()); size > n+500 {
			t.Fatalf("the witness cosigned a log with edited tiles (size %d)", size)
		}
		e.closeIn(time.Second) // its last checkpoint will never be cosigned
		proof, err := translog.ConsistencyProof(context.Background(), client.FileFetcher{Root: e.cfg.Dir}.ReadTile, n, n+500)
		if err != nil {
			t.Fatal(err)
		}
		if code, d := logproof.Consistent(cp, cp2, proof, e.policy); code != logproof.ProofInvalid {
			t.Fatalf("edited tiles: consistency %q %s", code, d)
		} else {
			t.Logf("edited tiles: %s %s", code, d)
		}
		// Re-create the store: a fresh log under the same key. The witness
		// will not cosign its first checkpoint, so it cannot even start.
		os.RemoveAll(e.cfg.Dir)
		if l, err := translog.Open(context.Background(), e.cfg); err == nil {
			l.Close(context.Background())
			t.Fatal("a re-created log started: the witness cosigned its empty tree")
		} else if !strings.Contains(err.Error(), "witness") {
			t.Fatalf("re-created log: %v", err)
		} else {
			t.Logf("re-created store refused: %v", err)
		}
	}
	if got := e.wit.Latest(origin); string(got) == "" {
		t.Fatal("the witness forgot what it cosigned")
	}
}

func mustProve(t *testing.T, e *env, idx map[uint64]int) []byte {
	for x, i := range idx {
		p, err := e.log.Prove(bounded(t), x, leaf(i))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return nil
}

func TestPOSIX(t *testing.T) { testEndToEnd(t, translog.POSIX, "") }

// TestMySQL runs the same test against MariaDB/MySQL: scripts/mariadb.sh
// starts one and exports LOGBOOK_TEST_MYSQL_DSN (CI does).
func TestMySQL(t *testing.T) {
	testEndToEnd(t, translog.MySQL, testmysql.DSN(t))
}

// report keeps a figure for scripts/test.sh's summary.
func report(t *testing.T, name, value string) {
	testreport.Line(t, fmt.Sprintf("translog: %s: %s", name, value))
}

// bounded is a context that ends with the test or after a minute, so that
// a log that never publishes fails the test instead of hanging it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestMySQLOpenedTogether: replicas started at once on an empty database
// each create the log's first tree; every one of them opens (MariaDB's
// deadlock on the losers is retried), none exits.
func TestMySQLOpenedTogether(t *testing.T) {
	dsn := testmysql.DSN(t)
	seed := make([]byte, 32)
	seed[0] = 9
	cfg := translog.Config{Driver: translog.MySQL, DSN: dsn, Origin: origin, Key: ed25519.NewKeyFromSeed(seed),
		BatchSize: 16, BatchAge: 10 * time.Millisecond, CheckpointInterval: time.Second}
	const n = 6
	errs := make(chan error, n)
	logs := make(chan *translog.Log, n)
	for range n {
		go func() {
			l, err := translog.Open(context.Background(), cfg)
			errs <- err
			logs <- l
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
		if l := <-logs; l != nil {
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				l.Close(ctx)
			})
		}
	}
}
