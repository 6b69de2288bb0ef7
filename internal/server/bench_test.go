package server_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/server"
)

// fiftyRules is a gate of 50 regexp rules over Bash commands, none of
// which matches the benchmarks' commands (as e2e's fiftyRules).
func fiftyRules(b testing.TB) *gate.Gate {
	type rule struct {
		Name     string `json:"name"`
		When     string `json:"when"`
		Decision string `json:"decision"`
	}
	var rules []rule
	for i := range 50 {
		rules = append(rules, rule{fmt.Sprintf("r%02d", i), fmt.Sprintf(`tool == 'Bash' && input.command.matches(r'forbidden%02d\s+--now')`, i), "deny"})
	}
	text, _ := json.Marshal(map[string]any{"version": "logbook/policy@0", "rules": rules})
	p, err := orgpolicy.ParseText(text)
	if err != nil {
		b.Fatal(err)
	}
	prog, err := gate.Compile(p)
	if err != nil {
		b.Fatal(err)
	}
	return &gate.Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: p}}
}

// BenchmarkAppend: one hook event through the handler, in process (no
// network): parse, redact, append under the lock, sign the checkpoint,
// append it. The checkpoint's share is BenchmarkSign's figure over this
// one. fsync=group waits for its own fsync each time (one client: no
// batch to share), fsync=off does not.
//
// fsync=background answers once written (its fsync follows in the
// background); +gate50 adds a 50-rule organization policy (none matches:
// every rule runs) and its gate step before the event.
func BenchmarkAppend(b *testing.B) {
	for _, arm := range []struct {
		mode string
		gate bool
	}{{server.FsyncOff, false}, {server.FsyncGroup, false}, {server.FsyncBackground, false}, {server.FsyncBackground, true}} {
		name := "fsync=" + arm.mode
		if arm.gate {
			name += "+gate50"
		}
		mode := arm.mode
		b.Run(name, func(b *testing.B) {
			f := newServer(b, func(c *server.Config, _ *http.Server) {
				c.Fsync = mode
				if arm.gate {
					c.Gate = fiftyRules(b)
				}
			})
			h := f.srv.Handler()
			body := event("bench", "PreToolUse", 1)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := httptest.NewRequest("POST", "/v1/hooks/claude-code", bytes.NewReader(body))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}

// BenchmarkSign: signing one checkpoint note.
func BenchmarkSign(b *testing.B) {
	s, _ := checkpoint.NewSigner("logbook.test", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)))
	c := checkpoint.Checkpoint{Session: "bench", Size: 1000, Tip: strings.Repeat("a", 64), Time: "2026-12-01T00:00:00.123456789Z", Redact: strings.Repeat("b", 64)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.Size = int64(i + 1)
		if _, err := s.Sign(c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyCheckpoint: opening one note under a pinned key.
func BenchmarkVerifyCheckpoint(b *testing.B) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	s, _ := checkpoint.NewSigner("logbook.test", priv)
	note, _ := s.Sign(checkpoint.Checkpoint{Session: "bench", Size: 1000, Tip: strings.Repeat("a", 64), Time: "2026-12-01T00:00:00Z", Redact: strings.Repeat("b", 64)})
	keys := []checkpoint.Key{{Pub: priv.Public().(ed25519.PublicKey)}}
	for i := 0; i < b.N; i++ {
		if _, err := checkpoint.Open(note, keys, nil); err != nil {
			b.Fatal(err)
		}
	}
}
