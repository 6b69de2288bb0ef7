package checkpoint_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/checkpoint"
)

// A server signs a checkpoint after an append; a verifier that pins the
// server's key opens it and judges a record against it.
func Example() {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	signer, _ := checkpoint.NewSigner("logbook.example.org", priv)
	note, _ := signer.Sign(checkpoint.Checkpoint{Session: "s1", Size: 3, Tip: strings.Repeat("a", 64),
		Time: "2026-12-01T10:00:00Z", Redact: strings.Repeat("0", 64)})
	fmt.Print(string(note[:bytes.Index(note, []byte("\n\n"))+1]))

	pinned := []checkpoint.Key{{Pub: priv.Public().(ed25519.PublicKey)}}
	opened := checkpoint.OpenAll([][]byte{note}, pinned, nil)
	// A record of session s1 with only 2 steps: its tail was cut.
	fmt.Println(checkpoint.Judge(opened, "s1", 2, nil).Code)
	// The whole record, whose steps[2].hash is the tip.
	v := checkpoint.Judge(opened, "s1", 3, map[int64]string{2: strings.Repeat("a", 64)})
	fmt.Println(v.Code == "", v.Level)
	// Output:
	// logbook.example.org
	// logbook-checkpoint/v1
	// session s1
	// size 3
	// tip aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
	// time 2026-12-01T10:00:00Z
	// redact 0000000000000000000000000000000000000000000000000000000000000000
	// key fd110d301d2f077de1414b8f99f441b1403fab207b2052fbd2c065e4ee8e7dc2
	// TRUNCATED
	// true server
}
