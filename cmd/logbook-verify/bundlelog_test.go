package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/witness"
)

// Logged bundles (docs/bundle.md): testdata/bundles/logged/ holds a record
// sealed by a real logbook-server whose checkpoints went to its
// transparency log, cosigned by one witness; the record's checkpoint and
// tlog-proof sidecars as the server wrote them; damaged copies of each
// part; the policies a receiver could hold; and one bundle per case of
// loggedCases. The parts and bundles are written by
// `go test ./cmd/logbook-verify -run TestBundleLogged -update-bundles`
// (keys of the server fixed, the witness's fresh: a rewrite changes
// bytes, not verdicts).

const loggedDir = bundleDir + "/logged"

// loggedCase is one check, run on the parts and on the case's bundle.
type loggedCase struct {
	name                      string
	record, checkpoint, proof string // files in loggedDir
	policy                    string // "" : no --log-policy
	want                      string // code, or "logged"/"server"
}

var loggedCases = []loggedCase{
	{"good", "s1.record.json", "s1.record.checkpoint", "s1.record.tlog-proof", "w1.policy", "logged"},
	{"good_no_policy", "s1.record.json", "s1.record.checkpoint", "", "", "server"},
	{"checkpoint_edited", "s1.record.json", "edited.checkpoint", "s1.record.tlog-proof", "w1.policy", "CHECKPOINT_INVALID"},
	{"checkpoint_other_session", "s1.record.json", "s2.record.checkpoint", "s1.record.tlog-proof", "w1.policy", "CHECKPOINT_MISMATCH"},
	{"record_cut", "cut.record.json", "s1.record.checkpoint", "s1.record.tlog-proof", "w1.policy", "TRUNCATED"},
	{"proof_edited", "s1.record.json", "s1.record.checkpoint", "edited.tlog-proof", "w1.policy", "LOG_PROOF_INVALID"},
	{"proof_of_other_session", "s1.record.json", "", "s2.record.tlog-proof", "w1.policy", "CHECKPOINT_MISMATCH"},
	{"wrong_log_key", "s1.record.json", "s1.record.checkpoint", "s1.record.tlog-proof", "other-log.policy", "LOG_UNTRUSTED"},
	{"wrong_witness", "s1.record.json", "s1.record.checkpoint", "s1.record.tlog-proof", "other-witness.policy", "WITNESS_QUORUM"},
}

// TestBundleLogged: for each case, logbook-verify on the parts
// (--checkpoint, --log-proof, --log-policy, RECORD) and on the bundle that
// holds them (--bundle, --log-policy) gives the same exit status, the
// same line and the same --json bytes, and the case's code or level.
func TestBundleLogged(t *testing.T) {
	if *updateBundles {
		writeLoggedFixtures(t)
	}
	p := func(f string) string { return filepath.Join(loggedDir, f) }
	if _, err := os.Stat(p("s1.record.json")); err != nil {
		t.Fatalf("%v; run go test ./cmd/logbook-verify -run TestBundleLogged -update-bundles", err)
	}
	for _, c := range loggedCases {
		t.Run(c.name, func(t *testing.T) {
			keys := []string{"--checkpoint-key", p("server.pub")}
			if c.policy != "" {
				keys = append(keys, "--log-policy", p(c.policy))
			}
			parts := append([]string{"--pubkey", p("server.pub")}, keys...)
			if c.checkpoint != "" {
				parts = append(parts, "--checkpoint", p(c.checkpoint))
			}
			if c.proof != "" && c.policy != "" {
				parts = append(parts, "--log-proof", p(c.proof))
			}
			rec := p(c.record)
			if c.checkpoint == "" {
				// No checkpoint given: the record alone, away from the
				// sidecar beside it, which --checkpoint-key would read.
				rec = filepath.Join(t.TempDir(), c.record)
				data, err := os.ReadFile(p(c.record))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(rec, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			parts = append(parts, rec)
			bundled := append([]string{"--bundle", p(c.name + ".bundle.json"), "--trust", p("server.pub")}, keys...)
			for _, mode := range [][]string{nil, {"--json"}} {
				code1, out1 := runVerify(t, append(append([]string{}, mode...), parts...)...)
				code2, out2 := runVerify(t, append(append([]string{}, mode...), bundled...)...)
				if code1 != code2 || out1 != out2 {
					t.Errorf("%v\nparts:  %d %s\nbundle: %d %s", mode, code1, out1, code2, out2)
				}
				if mode == nil {
					continue
				}
				var v struct {
					OK    bool
					Code  *string
					Level *string
				}
				if err := json.Unmarshal([]byte(out2), &v); err != nil {
					t.Fatalf("%v: %s", err, out2)
				}
				switch got := v.Code; {
				case c.want == "logged" || c.want == "server":
					if !v.OK || code2 != 0 || v.Level == nil || *v.Level != c.want {
						t.Errorf("got %d %s, want level %s", code2, out2, c.want)
					}
				case got == nil || *got != c.want || code2 != 1:
					t.Errorf("got %d %s, want %s", code2, out2, c.want)
				}
			}
		})
	}
	// The proof of the good bundle with no --log-policy: not checked, and
	// said so; the level is what the checkpoint gives.
	code, out := runVerify(t, "--bundle", p("good.bundle.json"), "--trust", p("server.pub"), "--checkpoint-key", p("server.pub"))
	if code != 0 || !strings.Contains(out, " level=server ") || !strings.Contains(out, "proof(s) of logging not checked: pass --log-policy") ||
		!strings.Contains(out, "bundled log policy (sha256 ") {
		t.Errorf("no --log-policy: %d %s", code, out)
	}
	// Nor are bundled checkpoint keys trusted: without --checkpoint-key
	// the checkpoint is not checked and the key is named by its keyId.
	code, out = runVerify(t, "--bundle", p("good.bundle.json"), "--trust", p("server.pub"))
	if code != 0 || !strings.Contains(out, " level=local") || !strings.Contains(out, "bundled checkpoint key keyId ") {
		t.Errorf("no --checkpoint-key: %d %s", code, out)
	}
	// A policy with no proof in the bundle is a usage error, as a missing
	// proof file is.
	code, out = runVerify(t, "--bundle", p("good_no_policy.bundle.json"), "--trust", p("server.pub"), "--log-policy", p("w1.policy"))
	if code != 2 || !strings.Contains(out, "no proof of logging") {
		t.Errorf("policy without a proof: %d %s", code, out)
	}
	code, out = runVerify(t, "--bundle", p("good.bundle.json"), "--trust", p("server.pub"), "--log-policy", p("w1.policy"), "--log-proof", p("s1.record.tlog-proof"))
	if code != 2 || !strings.Contains(out, "--log-proof") {
		t.Errorf("--log-proof with --bundle: %d %s", code, out)
	}
}

// writeLoggedFixtures runs a logbook-server with a POSIX transparency log
// and a witness on 127.0.0.1, records two sessions through its hook
// route, waits for their proofs of logging, and writes the parts, their
// damaged copies and the bundles.
func writeLoggedFixtures(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{11}, 32))
	wskey, wvkey, err := witness.GenerateKey("witness.test")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := witness.NewSigner(wskey)
	if err != nil {
		t.Fatal(err)
	}
	_, lvkey, err := translog.NewSigner("logbook.test/log", key)
	if err != nil {
		t.Fatal(err)
	}
	w, err := witness.New(t.TempDir(), ws, []string{lvkey}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer wln.Close()
	go http.Serve(wln, w.Handler())
	tl, err := translog.Open(context.Background(), translog.Config{Dir: filepath.Join(t.TempDir(), "log"), Origin: "logbook.test/log", Key: key,
		Witnesses: []byte(fmt.Sprintf("log %s\nwitness w1 %s http://%s\nquorum w1\n", lvkey, wvkey, wln.Addr())), WitnessTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	srv, err := server.New(server.Config{Dir: data, Origin: "logbook.test", Key: key, Version: "fixture", TLog: tl})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	for _, s := range []string{"s1", "s2"} {
		for i := -1; i < 13; i++ {
			name := map[bool]string{true: "PostToolUse", false: "PreToolUse"}[i%2 == 1]
			switch i {
			case -1:
				name = "SessionStart"
			case 12:
				name = "SessionEnd"
			}
			p := map[string]any{"session_id": s, "hook_event_name": name, "cwd": "/work/project"}
			switch name {
			case "SessionStart":
				p["source"] = "startup"
			case "PreToolUse", "PostToolUse":
				p["tool_name"], p["tool_use_id"] = "Bash", fmt.Sprintf("toolu_%s_%02d", s, i/2)
				p["tool_input"] = map[string]any{"command": fmt.Sprintf("go test ./pkg%d", i/2)}
				if name == "PostToolUse" {
					p["tool_response"] = map[string]any{"stdout": "ok", "exitCode": 0}
				}
			default:
				p["reason"] = "other"
			}
			body, _ := json.Marshal(p)
			resp, err := http.Post(ts.URL+"/v1/hooks/claude-code", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s event %d: %s", s, i, resp.Status)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := srv.WaitProofs(ctx); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	srv.Close()
	tl.Close(ctx)

	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	_, pubPEM, _ := keys.MarshalPair(key, key.Public().(ed25519.PublicKey))
	_, strangerLog, _ := translog.NewSigner("logbook.test/log", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{12}, 32)))
	_, otherWitness, _ := witness.GenerateKey("witness2.test")
	files := map[string][]byte{
		"server.pub":           pubPEM,
		"w1.policy":            []byte(fmt.Sprintf("log %s\nwitness w1 %s\nquorum w1\n", lvkey, wvkey)),
		"other-log.policy":     []byte(fmt.Sprintf("log %s\nwitness w1 %s\nquorum w1\n", strangerLog, wvkey)),
		"other-witness.policy": []byte(fmt.Sprintf("log %s\nwitness w2 %s\nquorum w2\n", lvkey, otherWitness)),
	}
	for _, s := range []string{"s1", "s2"} {
		for _, ext := range []string{".record.json", ".record.checkpoint", ".record.tlog-proof"} {
			files[s+ext] = read(s + ext)
		}
	}
	edit := func(name string, b []byte, from, to string) []byte {
		out := bytes.Replace(b, []byte(from), []byte(to), 1)
		if bytes.Equal(out, b) {
			t.Fatalf("%s: no %q", name, from)
		}
		return out
	}
	files["edited.checkpoint"] = edit("checkpoint", files["s1.record.checkpoint"], "\ntime 2", "\ntime 1")
	files["edited.tlog-proof"] = edit("proof", files["s1.record.tlog-proof"], "\nindex ", "\nindex 1")
	cut, err := tamper.Apply(files["s1.record.json"], tamper.CutTail(2), tamper.FixCountAndTip, tamper.Resign(key))
	if err != nil {
		t.Fatal(err)
	}
	files["cut.record.json"] = cut
	for _, c := range loggedCases {
		b := &bundle.Bundle{Record: files[c.record], SignerKey: string(pubPEM), CheckpointKeys: []string{string(pubPEM)}}
		if c.checkpoint != "" {
			b.Checkpoints = [][]byte{files[c.checkpoint]}
		}
		if c.proof != "" {
			b.LogProofs, b.LogPolicy = [][]byte{files[c.proof]}, string(files["w1.policy"])
		}
		if files[c.name+".bundle.json"], err = bundle.Write(b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	os.RemoveAll(loggedDir)
	if err := os.MkdirAll(loggedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(loggedDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
