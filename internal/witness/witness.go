// Package witness is a C2SP tlog-witness: for each log it knows, it keeps
// the last checkpoint it cosigned, and cosigns a newer one (C2SP
// tlog-cosignature, cosignature/v1) only when the log's key signed it and
// a Merkle consistency proof shows that it extends the old one. It never
// cosigns a smaller tree after a larger one, nor two different trees of
// one size: a log that rewrote its past, or shows two histories, is
// refused. State is one file per log, replaced atomically before the
// cosignature is answered, so a restart never forgets what was cosigned.
package witness

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/logproof"
)

// MaxBody bounds an add-checkpoint request: 63 proof lines and a
// checkpoint with its signatures.
const MaxBody = 64 << 10

// Witness answers add-checkpoint requests. It is safe for concurrent use.
type Witness struct {
	dir    string
	signer note.Signer
	logs   map[string]note.Verifier // by origin
	log    *slog.Logger
	mu     sync.Mutex
	locks  map[string]*sync.Mutex
}

// New makes a witness keeping its state in dir (created 0700), cosigning
// with signer (a cosignature/v1 signer), for the logs whose verifier keys
// are given; each key's name is its log's origin.
func New(dir string, signer note.Signer, logKeys []string, log *slog.Logger) (*Witness, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Witness{dir: dir, signer: signer, logs: map[string]note.Verifier{}, log: log, locks: map[string]*sync.Mutex{}}
	for _, k := range logKeys {
		v, err := note.NewVerifier(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("log key %q: %v", k, err)
		}
		w.logs[v.Name()] = v
	}
	return w, nil
}

// NewSigner reads a witness's private key (a note signer key,
// PRIVATE+KEY+NAME+HASH+KEY) as a cosignature/v1 signer.
func NewSigner(skey string) (note.Signer, error) {
	return fnote.NewSignerForCosignatureV1(strings.TrimSpace(skey))
}

// GenerateKey makes a new witness key named name: the signer key to keep
// private, and the cosignature/v1 verifier key for policies.
func GenerateKey(name string) (skey, vkey string, err error) {
	skey, vkey, err = note.GenerateKey(nil, name)
	if err != nil {
		return "", "", err
	}
	vkey, err = fnote.VKeyToCosignatureV1(vkey)
	return skey, vkey, err
}

// Status codes of tlog-witness, with why.
type refusal struct {
	status int
	msg    string
	size   int64 // for 409 with a known size
}

func (r *refusal) Error() string { return r.msg }

func refuse(status int, format string, a ...any) *refusal {
	return &refusal{status: status, msg: fmt.Sprintf(format, a...)}
}

// Handler serves POST /add-checkpoint.
func (w *Witness) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/add-checkpoint", func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			rw.Header().Set("Allow", "POST")
			http.Error(rw, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, MaxBody))
		if err != nil {
			http.Error(rw, "body too large or cut off", http.StatusBadRequest)
			return
		}
		sig, err := w.Add(body)
		if err != nil {
			var ref *refusal
			if !errors.As(err, &ref) {
				w.log.Error("add-checkpoint", "error", err.Error())
				http.Error(rw, "internal error", http.StatusInternalServerError)
				return
			}
			w.log.Warn("refused", "status", ref.status, "why", ref.msg)
			if ref.status == http.StatusConflict && ref.size >= 0 {
				rw.Header().Set("Content-Type", "text/x.tlog.size")
				rw.WriteHeader(http.StatusConflict)
				fmt.Fprintf(rw, "%d\n", ref.size)
				return
			}
			http.Error(rw, ref.msg, ref.status)
			return
		}
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write(sig)
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) { http.NotFound(rw, r) })
	return mux
}

// Add handles one add-checkpoint body: "old N", the consistency proof
// lines, an empty line, the signed checkpoint. It returns the
// cosignature line, or a *refusal carrying the tlog-witness status.
func (w *Witness) Add(body []byte) ([]byte, error) {
	head, cp, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return nil, refuse(http.StatusBadRequest, "no empty line before the checkpoint")
	}
	lines := strings.Split(string(head), "\n")
	v, ok := strings.CutPrefix(lines[0], "old ")
	old, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil || old < 0 || strconv.FormatInt(old, 10) != v {
		return nil, refuse(http.StatusBadRequest, "first line %q: want old SIZE", lines[0])
	}
	var proof []tlog.Hash
	for _, l := range lines[1:] {
		raw, err := base64.StdEncoding.Strict().DecodeString(l)
		if err != nil || len(raw) != tlog.HashSize || len(proof) >= 63 {
			return nil, refuse(http.StatusBadRequest, "bad proof line %q", l)
		}
		var h tlog.Hash
		copy(h[:], raw)
		proof = append(proof, h)
	}
	origin, _, _ := bytes.Cut(cp, []byte("\n"))
	lv, ok := w.logs[string(origin)]
	if !ok {
		return nil, refuse(http.StatusNotFound, "unknown log %q", origin)
	}
	if _, err := note.Open(cp, note.VerifierList(lv)); err != nil {
		return nil, refuse(http.StatusForbidden, "the log's key did not sign it: %v", err)
	}
	t, err := logproof.ParseTree(cp)
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "checkpoint: %v", err)
	}
	lock := w.lock(t.Origin)
	lock.Lock()
	defer lock.Unlock()
	prev, err := w.latest(t.Origin)
	if err != nil {
		return nil, err
	}
	if old != prev.Size {
		r := refuse(http.StatusConflict, "old %d, but the last cosigned size is %d", old, prev.Size)
		r.size = prev.Size
		return nil, r
	}
	switch {
	case old > t.Size:
		return nil, refuse(http.StatusBadRequest, "checkpoint of %d leaves is smaller than the %d cosigned: the log went backwards", t.Size, old)
	case old == t.Size:
		if prev.Size > 0 && t.Root != prev.Root {
			r := refuse(http.StatusConflict, "a second root for the tree of %d leaves: the log forked", t.Size)
			r.size = -1
			return nil, r
		}
	case old > 0:
		if err := tlog.CheckTree(proof, t.Size, t.Root, old, prev.Root); err != nil {
			return nil, refuse(http.StatusUnprocessableEntity, "the tree of %d leaves does not extend the cosigned tree of %d: %v", t.Size, old, err)
		}
	}
	signed, err := note.Sign(&note.Note{Text: textOf(cp)}, w.signer)
	if err != nil {
		return nil, err
	}
	// The state changes before the cosignature leaves: a crash between
	// the two costs a retry, never a cosignature the state forgot.
	if t.Size != prev.Size || prev.Size == 0 {
		if err := durable.WriteFileMode(w.path(t.Origin), cp, 0o600); err != nil {
			return nil, err
		}
	}
	_, sig, _ := bytes.Cut(signed, []byte("\n\n"))
	w.log.Info("cosigned", "origin", t.Origin, "size", t.Size)
	return sig, nil
}

// textOf is the checkpoint's text (up to and including the newline before
// the empty line).
func textOf(cp []byte) string {
	text, _, _ := bytes.Cut(cp, []byte("\n\n"))
	return string(text) + "\n"
}

func (w *Witness) lock(origin string) *sync.Mutex {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.locks[origin]
	if l == nil {
		l = &sync.Mutex{}
		w.locks[origin] = l
	}
	return l
}

func (w *Witness) path(origin string) string {
	sum := sha256.Sum256([]byte(origin))
	return filepath.Join(w.dir, hex.EncodeToString(sum[:16])+".checkpoint")
}

// latest is the last cosigned tree of a log (size 0 when none).
func (w *Witness) latest(origin string) (logproof.Tree, error) {
	b, err := os.ReadFile(w.path(origin))
	if errors.Is(err, os.ErrNotExist) {
		return logproof.Tree{Origin: origin}, nil
	}
	if err != nil {
		return logproof.Tree{}, err
	}
	return logproof.ParseTree(b)
}

// Latest returns the last checkpoint cosigned for origin, nil when none.
func (w *Witness) Latest(origin string) []byte {
	b, _ := os.ReadFile(w.path(origin))
	return b
}

// NewVerifier reads a witness's verifier key as a cosignature/v1 verifier.
func NewVerifier(vkey string) (note.Verifier, error) {
	return fnote.NewVerifierForCosignatureV1(strings.TrimSpace(vkey))
}
