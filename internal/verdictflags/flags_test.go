package verdictflags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/verdict"
)

const logged = "../../testdata/bundles/logged"

// TestRecordSidecarsAndBundle: with --checkpoint-key and --log-policy
// alone, a record's sidecars are its checkpoint and proof (level logged);
// a bundle's own are used in their place, and another session's there
// refuses the record, as the bundle's parts would be checked.
func TestRecordSidecarsAndBundle(t *testing.T) {
	f := Flags{CheckpointKeys: cli.List{filepath.Join(logged, "server.pub")}, LogPolicy: filepath.Join(logged, "w1.policy")}
	in, err := f.Load()
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(logged, "s1.record.json")
	rin, err := f.Record(in, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rin.Record, err = os.ReadFile(rec); err != nil {
		t.Fatal(err)
	}
	if o := verdict.Run(rin); !o.Result.OK || o.Level != logproof.LevelLogged || len(rin.Checkpoints) != 1 {
		t.Fatalf("sidecars: %s %s, level %q, %d checkpoints", o.Result.Code, o.Result.Detail, o.Level, len(rin.Checkpoints))
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(logged, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := &bundle.Bundle{Checkpoints: [][]byte{read("s2.record.checkpoint")}, LogProofs: [][]byte{read("s1.record.tlog-proof")}}
	bin, err := f.Record(in, rec, b)
	if err != nil {
		t.Fatal(err)
	}
	bin.Record = rin.Record
	if o := verdict.Run(bin); o.Result.OK {
		t.Fatalf("a bundle's checkpoint of another session was not judged: level %q", o.Level)
	}
	if _, err := f.Record(in, rec, &bundle.Bundle{}); err == nil || !strings.Contains(err.Error(), "no proof of logging: the bundle holds none") {
		t.Fatalf("a bundle without a proof: %v", err)
	}
}

// TestUsageErrors: flags that need another are errors, named.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		f    Flags
		want string
	}{
		{Flags{LogProof: "p"}, "--log-proof needs --log-policy"},
		{Flags{LogTiles: "t"}, "--log-tiles needs --log-policy"},
		{Flags{LogProof: "p", LogTiles: "t"}, "--log-proof and --log-tiles need --log-policy"},
		{Flags{Checkpoints: cli.List{"c"}}, "--checkpoint needs at least one --checkpoint-key"},
		{Flags{Rotations: filepath.Join(logged, "w1.policy")}, "--key-rotations needs a --pubkey or --checkpoint-key"},
	} {
		in, err := c.f.Load()
		if err == nil {
			_, err = c.f.Record(in, "r.json", nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
}

// TestReadToken: a server's read token before its one token.
func TestReadToken(t *testing.T) {
	env := map[string]string{"LOGBOOK_SERVER_TOKEN": " all\n", "LOGBOOK_SERVER_READ_TOKEN": "read"}
	if got := ReadToken(func(k string) string { return env[k] }); got != "read" {
		t.Errorf("%q", got)
	}
	delete(env, "LOGBOOK_SERVER_READ_TOKEN")
	if got := ReadToken(func(k string) string { return env[k] }); got != "all" {
		t.Errorf("%q", got)
	}
}
