package translog_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/witness"
)

// TestWitnessAnswerBounded: a witness that answers with an endless body
// is read no further than translog.MaxWitnessAnswer (plus what the
// sockets buffer), not for the whole witness timeout.
func TestWitnessAnswerBounded(t *testing.T) {
	const flood = 64 << 20
	written := make(chan int, 16)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("— witness.test AAAA\n"), 2048)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		n := 0
		for n < flood {
			m, err := w.Write(chunk)
			n += m
			if err != nil {
				break
			}
		}
		written <- n
	})}
	go srv.Serve(ln)
	defer srv.Close()

	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))
	_, lvkey, err := translog.NewSigner(origin, key)
	if err != nil {
		t.Fatal(err)
	}
	_, wvkey, err := witness.GenerateKey("witness.test")
	if err != nil {
		t.Fatal(err)
	}
	pol := fmt.Sprintf("log %s\nwitness w1 %s http://%s\nquorum w1\n", lvkey, wvkey, ln.Addr())
	// The empty log's first checkpoint already needs the witness: Open
	// fails, the policy unsatisfied, having read a bounded answer.
	l, err := translog.Open(context.Background(), translog.Config{Dir: filepath.Join(t.TempDir(), "log"), Origin: origin, Key: key,
		Witnesses: []byte(pol), BatchAge: 10 * time.Millisecond, CheckpointInterval: 100 * time.Millisecond, WitnessTimeout: 5 * time.Second})
	if err == nil {
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			l.Close(ctx)
		}()
		l.Add(context.Background(), leaf(1))
	} else if !strings.Contains(err.Error(), translog.ErrWitnessAnswerTooLarge.Error()) {
		t.Errorf("open: %v", err)
	}
	select {
	case n := <-written:
		// Loopback socket buffers hold a few MiB at most.
		if n >= 32<<20 {
			t.Fatalf("the log read %d bytes of a witness's answer", n)
		}
		t.Logf("the witness wrote %d bytes before the log hung up", n)
	case <-time.After(60 * time.Second):
		t.Fatal("the log never asked the witness")
	}
}
