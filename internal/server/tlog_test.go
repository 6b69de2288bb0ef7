package server_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/witness"
)

// logged starts a server whose checkpoints go to a transparency log
// (driver, dsn) cosigned by one witness on 127.0.0.1, and returns the
// verification policy (log key, witness key, quorum 1).
func logged(t *testing.T, driver, dsn string) (*fixture, *translog.Log, string, func()) {
	t.Helper()
	skey, wvkey, err := witness.GenerateKey("witness.test")
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := witness.NewSigner(skey)
	var tl *translog.Log
	var lvkey string
	var witLn net.Listener
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		_, lvkey, _ = translog.NewSigner("logbook.test/log", c.Key)
		w, err := witness.New(t.TempDir(), ws, []string{lvkey}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if witLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		go http.Serve(witLn, w.Handler())
		pol := fmt.Sprintf("log %s\nwitness w1 %s http://%s\nquorum w1\n", lvkey, wvkey, witLn.Addr())
		tl, err = translog.Open(context.Background(), translog.Config{Driver: driver, DSN: dsn, Dir: filepath.Join(t.TempDir(), "log"),
			Origin: "logbook.test/log", Key: c.Key, Witnesses: []byte(pol), WitnessTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c.TLog = tl
	})
	policy := fmt.Sprintf("log %s\nwitness w1 %s\nquorum w1\n", lvkey, wvkey)
	stop := func() {
		f.ts.Close()
		witLn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		f.srv.Close()
		tl.Close(ctx)
	}
	return f, tl, policy, stop
}

// testServerLogged: 20 sessions of 500 events through the server, about
// 10,000 session checkpoints, all appended to the log; every sealed
// record's proof of logging verifies offline, with no listener up, at
// level logged; forged proofs and policies get their codes.
func testServerLogged(t *testing.T, driver, dsn string) {
	f, tl, policyText, stop := logged(t, driver, dsn)
	const sessions, events = 20, 499
	start := time.Now()
	var wg sync.WaitGroup
	for s := 0; s < sessions; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			f.record(t, http.DefaultClient, fmt.Sprintf("log-%02d", s), events, true)
		}(s)
	}
	wg.Wait()
	took := time.Since(start)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := f.srv.WaitProofs(ctx); err != nil {
		t.Fatalf("proofs: %v", err)
	}
	checkpoints := 0
	for s := 0; s < sessions; s++ {
		b, _ := os.ReadFile(checkpoint.LogPath(f.opts.Dir, fmt.Sprintf("log-%02d", s)))
		checkpoints += strings.Count(string(b), "\n\n") / 2
	}
	// Every checkpoint is a leaf once the log has caught up.
	deadline := time.Now().Add(30 * time.Second)
	var size int64
	for time.Now().Before(deadline) {
		if size, _, _ = tl.Size(context.Background()); size >= int64(checkpoints) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if size < int64(checkpoints) {
		t.Fatalf("log of %d leaves for %d checkpoints", size, checkpoints)
	}
	t.Logf("%s: %d events, %d session checkpoints through the server in %v (%.0f/s); log size %d",
		driver, sessions*(events+1), checkpoints, took.Round(time.Millisecond), float64(checkpoints)/took.Seconds(), size)
	testreport.Line(t, fmt.Sprintf("server+log (%s): %d session checkpoints in %v, %.0f/s, log size %d", driver, checkpoints,
		took.Round(time.Millisecond), float64(checkpoints)/took.Seconds(), size))

	type sealed struct{ rec, proof, bundle []byte }
	var recs []sealed
	for s := 0; s < sessions; s++ {
		base := filepath.Join(f.opts.Dir, fmt.Sprintf("log-%02d", s))
		rec, err1 := os.ReadFile(base + ".record.json")
		proof, err2 := os.ReadFile(base + ".record.tlog-proof")
		bundle, err3 := os.ReadFile(base + ".record.intoto.json")
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("session %d: %v %v %v", s, err1, err2, err3)
		}
		recs = append(recs, sealed{rec, proof, bundle})
	}
	// The tiles over HTTP (C2SP tlog-tiles, read-only): a consistency
	// proof built from them holds between an early and the latest
	// checkpoint, and nothing can be written there.
	_, latest := get(t, f.ts.URL+"/v1/log/checkpoint")
	lt, err := logproof.ParseTree(latest)
	if err != nil {
		t.Fatalf("GET /v1/log/checkpoint: %v %q", err, latest)
	}
	u, _ := url.Parse(f.ts.URL + "/v1/log/")
	hf, _ := client.NewHTTPFetcher(u, nil)
	cons, err := translog.ConsistencyProof(context.Background(), hf.ReadTile, 1000, uint64(lt.Size))
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(cons, lt.Size, lt.Root, 1000, treeHashAt(t, hf, 1000)); err != nil {
		t.Fatalf("consistency over HTTP: %v", err)
	}
	if code, _ := post(t, http.DefaultClient, f.ts.URL+"/v1/log/checkpoint", []byte("x")); code != http.StatusMethodNotAllowed {
		t.Errorf("POST to the tiles: %d", code)
	}
	if code, _ := get(t, f.ts.URL+"/v1/log/tile/0/x999/999"); code != http.StatusNotFound {
		t.Errorf("a tile beyond the log: %d", code)
	}
	if code, body := get(t, f.ts.URL+"/v1/sessions/log-00/attestation"); code != http.StatusOK || string(body) != string(recs[0].bundle) {
		t.Errorf("GET …/attestation: %d, not the bundle beside the record", code)
	}
	stop() // offline from here: nothing listens
	pol, err := logproof.ParsePolicy([]byte(policyText))
	if err != nil {
		t.Fatal(err)
	}
	run := func(rec, proof []byte, p *logproof.Policy) verdict.Outcome {
		return verdict.Run(verdict.Inputs{Record: rec, Pinned: []ed25519PublicKey{f.pub}, Log: verdict.LogInputs{Proof: proof, Policy: p}})
	}
	for i, r := range recs {
		if o := run(r.rec, r.proof, pol); !o.Result.OK || o.Level != logproof.LevelLogged {
			t.Fatalf("session %d: %s %s level %q", i, o.Result.Code, o.Result.Detail, o.Level)
		}
		// The session's attestation bundle, signed by the server, cites
		// the one entry of the session whose proof is beside it, and
		// holds under the reader's policy (a witness quorum).
		in := verdict.Inputs{Record: r.rec, Pinned: []ed25519PublicKey{f.pub}, Log: verdict.LogInputs{Proof: r.proof, Policy: pol},
			Policy: policy.Options{Bundles: [][]byte{r.bundle}, AttestorKeys: []ed25519PublicKey{f.pub}}}
		if o := verdict.Run(in); !o.Result.OK || len(o.Report.Attestations) != 1 {
			t.Fatalf("session %d's attestation bundle: %s %s", i, o.Result.Code, o.Result.Detail)
		}
		if i > 0 {
			in.Policy.Bundles = [][]byte{recs[0].bundle}
			if o := verdict.Run(in); o.Result.Code != "ATTEST_INVALID" {
				t.Errorf("session 0's bundle checked with session %d's record: %s", i, o.Result.Code)
			}
		}
	}
	// Refusals, each named.
	_, ovkey, _ := witness.GenerateKey("witness2.test")
	noQuorum, _ := logproof.ParsePolicy([]byte(strings.SplitN(policyText, "\n", 2)[0] + "\nwitness w2 " + ovkey + "\nquorum w2\n"))
	_, strangerLog, _ := translog.NewSigner("logbook.test/log", ed25519NewKey(9))
	untrusted, _ := logproof.ParsePolicy([]byte("log " + strangerLog + "\nquorum none\n"))
	bad := []byte(strings.Replace(string(recs[0].proof), "\nindex ", "\nindex 1", 1))
	cases := []struct {
		name       string
		rec, proof []byte
		p          *logproof.Policy
		want       string
	}{
		{"another witness quorum", recs[0].rec, recs[0].proof, noQuorum, logproof.Quorum},
		{"another log key", recs[0].rec, recs[0].proof, untrusted, logproof.Untrusted},
		{"wrong index", recs[0].rec, bad, pol, logproof.ProofInvalid},
		{"another session's proof", recs[0].rec, recs[1].proof, pol, checkpoint.Mismatch},
		{"not a proof", recs[0].rec, []byte("hello"), pol, logproof.ProofInvalid},
	}
	for _, c := range cases {
		if o := run(c.rec, c.proof, c.p); string(o.Result.Code) != c.want || o.Level != "" {
			t.Errorf("%s: %q %s, want %s", c.name, o.Result.Code, o.Result.Detail, c.want)
		}
	}
}

func TestServerLoggedPOSIX(t *testing.T) { testServerLogged(t, translog.POSIX, "") }

// TestServerLoggedMySQL is the same end-to-end test on MariaDB/MySQL
// (scripts/mariadb.sh sets LOGBOOK_TEST_MYSQL_DSN; CI runs it).
func TestServerLoggedMySQL(t *testing.T) {
	testServerLogged(t, translog.MySQL, testmysql.DSN(t))
}

// treeHashAt is the root of the log's first n leaves, computed by tlog
// from the leaf hashes in the tiles (an independent reading of them).
func treeHashAt(t *testing.T, hf *client.HTTPFetcher, n int64) tlog.Hash {
	hashes, err := client.FetchLeafHashes(context.Background(), hf.ReadTile, 0, uint64(n), uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	var stored []tlog.Hash
	r := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = stored[x]
		}
		return out, nil
	})
	for i, h := range hashes {
		var lh tlog.Hash
		copy(lh[:], h)
		more, err := tlog.StoredHashesForRecordHash(int64(i), lh, r)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, more...)
	}
	root, err := tlog.TreeHash(n, r)
	if err != nil {
		t.Fatal(err)
	}
	return root
}
