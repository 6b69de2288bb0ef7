package verdict_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/verdict"
)

// TestLoggedLeafGivenOnce: a record's final checkpoint given with
// --checkpoint and logged in its proof is one checkpoint, listed once, at
// level logged; the fixtures are a real server's (testdata/bundles/logged).
func TestLoggedLeafGivenOnce(t *testing.T) {
	dir := "../../testdata/bundles/logged"
	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pub, err := keys.ParsePublicKeyPEM(read("server.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := logproof.ParsePolicy(read("w1.policy"))
	if err != nil {
		t.Fatal(err)
	}
	in := verdict.Inputs{Record: read("s1.record.json"), Checkpoints: [][]byte{read("s1.record.checkpoint")},
		CheckpointKeys: []checkpoint.Key{{Pub: pub}}, Log: verdict.LogInputs{Proof: read("s1.record.tlog-proof"), Policy: pol}}
	o := verdict.Run(in)
	if !o.Result.OK || o.Level != logproof.LevelLogged || len(o.Checkpoint.Covered) != 1 {
		t.Fatalf("%s %s level %q, %d checkpoints listed", o.Result.Code, o.Result.Detail, o.Level, len(o.Checkpoint.Covered))
	}
	// Another session's checkpoint beside the logged leaf is still judged.
	in.Checkpoints = [][]byte{read("s2.record.checkpoint")}
	if o := verdict.Run(in); o.Result.Code != checkpoint.Mismatch {
		t.Fatalf("%s %s, want %s", o.Result.Code, o.Result.Detail, checkpoint.Mismatch)
	}
}
