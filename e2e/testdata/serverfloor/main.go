// Command serverfloor is the floor BenchmarkPolicyServerLatency measures
// logbook-server against: a net/http server on the same port and flags
// that does the least a hook server can. With --floor empty it answers
// every POST with {} and records nothing; with --floor append-fsync it
// appends each body as a line to one file per session (kept open) and
// fsyncs that file in the background after answering, as logbook-server's
// --fsync background does, with no parsing, chaining, gate or signature;
// with --floor append-fsync-wait it fsyncs before answering, as the
// default group commit does (one fsync per event, none shared).
// --work DURATION adds that much CPU per event (a busy loop before the
// answer): what logbook-server's own work would cost a server that did
// nothing else. Other flags are accepted and ignored.
package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

func main() {
	var addr, data, mode string
	var work time.Duration
	for i := 1; i+1 < len(os.Args); i++ {
		switch os.Args[i] {
		case "--listen":
			addr = os.Args[i+1]
		case "--data":
			data = os.Args[i+1]
		case "--floor":
			mode = os.Args[i+1]
		case "--work":
			var err error
			if work, err = time.ParseDuration(os.Args[i+1]); err != nil {
				panic(err)
			}
		}
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		panic(err)
	}
	var mu sync.Mutex
	files := map[string]*os.File{}
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {})
	http.HandleFunc("/v1/hooks/claude-code", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if mode != "append-fsync" && mode != "append-fsync-wait" {
			w.Write([]byte("{}"))
			return
		}
		// The session id's bytes name the file: enough for a floor.
		id := "none"
		if _, rest, ok := bytes.Cut(body, []byte(`"session_id":"`)); ok {
			if v, _, ok := bytes.Cut(rest, []byte(`"`)); ok && len(v) < 100 && !bytes.ContainsAny(v, "/.") {
				id = string(v)
			}
		}
		mu.Lock()
		f := files[id]
		if f == nil {
			if f, err = os.OpenFile(filepath.Join(data, id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
				mu.Unlock()
				http.Error(w, err.Error(), 500)
				return
			}
			files[id] = f
		}
		mu.Unlock()
		if _, err := f.Write(append(body, '\n')); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		busy(work)
		if mode == "append-fsync-wait" {
			// The answer waits for the fsync, as logbook-server's
			// group commit does.
			if err := f.Sync(); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.Write([]byte("{}"))
			return
		}
		w.Write([]byte("{}"))
		go f.Sync()
	})
	if err := http.ListenAndServe(addr, nil); err != nil {
		panic(err)
	}
}

var sink uint64

// busy spends d of CPU time on the calling thread (not a sleep).
func busy(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
		for i := range uint64(1000) {
			sink += i * i
		}
	}
}
