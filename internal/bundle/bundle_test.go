package bundle

import (
	"bytes"
	"errors"
	"testing"
)

const rec = `{"chainTip":"x","steps":[{"a":[[[1]]]}]}`

func TestRoundTrip(t *testing.T) {
	b := &Bundle{Record: []byte(rec + "\n"), SignerKey: "PEM", Attestations: [][]byte{[]byte(` {"payload":"p"} `)},
		AttestorKeys: []string{"K1"}, TSARoots: "ROOTS", Checkpoints: [][]byte{[]byte("logbook.example/cp\n1\n\n— k abc=\n")},
		CheckpointKeys: []string{"logbook.example+01020304+AQ=="}, LogProofs: [][]byte{[]byte("c2sp.org/tlog-proof@v1\nindex 0\n\nlog\n")}, LogPolicy: "quorum none\n"}
	out, err := Write(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Record) != rec || got.SignerKey != "PEM" || len(got.Attestations) != 1 || string(got.Attestations[0]) != `{"payload":"p"}` ||
		got.AttestorKeys[0] != "K1" || got.TSARoots != "ROOTS" || len(got.Checkpoints) != 1 || string(got.Checkpoints[0]) != "logbook.example/cp\n1\n\n— k abc=\n" ||
		len(got.CheckpointKeys) != 1 || got.CheckpointKeys[0] != b.CheckpointKeys[0] || len(got.LogProofs) != 1 ||
		string(got.LogProofs[0]) != string(b.LogProofs[0]) || got.LogPolicy != b.LogPolicy {
		t.Fatalf("%+v", got)
	}
	if _, err := Write(&Bundle{Record: []byte(rec), SignerKey: "k", LogProofs: [][]byte{[]byte("a"), []byte("b")}}); err == nil {
		t.Error("two log proofs were bundled")
	}
	if _, err := Write(&Bundle{Record: []byte(`{"a":1,"a":2}`), SignerKey: "k"}); err == nil {
		t.Error("a record with a duplicate key was bundled")
	}
}

func TestRefusals(t *testing.T) {
	good := `{"format":"logbook/bundle@0","record":{},"signerKey":"k"}`
	if _, err := Read([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		``, `[]`, `{"format":"logbook/bundle@1","record":{},"signerKey":"k"}`,
		`{"format":"logbook/bundle@0","record":[],"signerKey":"k"}`,
		`{"format":"logbook/bundle@0","signerKey":"k"}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":""}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","x":1}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","format":"logbook/bundle@0"}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","attestations":[1]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","attestorKeys":[{}]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","tsaRoots":1}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","checkpoints":"x"}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","checkpoints":[{}]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","checkpoints":[""]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","logProofs":[{}]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","logProofs":[""]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","logProofs":["a","b"]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","logProofs":"a"}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","logPolicy":1}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","checkpointKeys":[1]}`,
		`{"format":"logbook/bundle@0","record":{},"signerKey":"k","checkpointKeys":"k"}`,
		good + ` x`, "\xef\xbb\xbf" + good,
	} {
		_, err := Read([]byte(bad))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v, want a bundle refusal", bad, err)
		}
	}
	deep := `{"format":"logbook/bundle@0","signerKey":"k","record":` + string(bytes.Repeat([]byte("["), 65)) + string(bytes.Repeat([]byte("]"), 65)) + `}`
	if _, err := Read([]byte(deep)); err == nil {
		t.Error("nesting beyond 65 accepted")
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"format":"logbook/bundle@0","record":{},"signerKey":"k","attestations":[{}],"logProofs":[]}`))
	f.Add([]byte(`{"format":"logbook/bundle@0","record":{},"signerKey":"k","checkpointKeys":["a"],"logProofs":["p"],"logPolicy":"q"}`))
	f.Add([]byte(`{"format":"logbook/bundle@0"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(data)
		if err == nil {
			if b.Record == nil || b.SignerKey == "" {
				t.Fatal("accepted without a record or key")
			}
			var e *Error
			if _, werr := Write(b); werr != nil && !errors.As(werr, &e) && b.Record[0] != '{' {
				t.Fatal(werr)
			}
		}
	})
}
