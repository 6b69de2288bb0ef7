package record_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
	"github.com/logbook-project/logbook/internal/translog"
)

// Proof-of-logging fixtures (docs/log.md, step 10) live in
// testdata/records/log/: records sealed by the server key, their options
// ("logPolicy", "logProof", "pubkey"), the proofs under proofs/ and the
// policies under policies/. The log holds seven leaves; the record's final
// checkpoint is leaf 4. Cosignatures are written here by hand from C2SP
// tlog-cosignature, with a fixed time, so the files are reproducible and
// the library that checks them is checked against a second writer.

const (
	logDir    = "records/log"
	logOrigin = serverOrigin + "/log"
	cosigTime = 1772359210 // 2026-03-01T10:00:10Z
)

type memHashes struct{ h []tlog.Hash }

func (m *memHashes) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m.h[x]
	}
	return out, nil
}

// cosign returns a cosignature/v1 line by witness name with key priv over
// the signed checkpoint's text.
func cosign(name string, priv ed25519.PrivateKey, signed []byte) (line, vkey string) {
	pub := priv.Public().(ed25519.PublicKey)
	kh := sha256.Sum256(append([]byte(name+"\n\x04"), pub...))
	text, _, _ := strings.Cut(string(signed), "\n\n")
	msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s\n", cosigTime, text)
	sig := binary.BigEndian.AppendUint64(append([]byte{}, kh[:4]...), cosigTime)
	sig = append(sig, ed25519.Sign(priv, []byte(msg))...)
	vk := fmt.Sprintf("%s+%08x+%s", name, binary.BigEndian.Uint32(kh[:4]), base64.StdEncoding.EncodeToString(append([]byte{4}, pub...)))
	return fmt.Sprintf("— %s %s\n", name, base64.StdEncoding.EncodeToString(sig)), vk
}

func logFixtures() map[string][]byte {
	server, other, w1, w2 := fixtureKey("server"), fixtureKey("other"), fixtureKey("witness-1"), fixtureKey("witness-2")
	serverPubKey := server.Public().(ed25519.PublicKey)
	good := assemble(baseSteps(), server)
	n := len(baseSteps())
	leafOf := func(size int) []byte {
		return must1(must1(checkpoint.NewSigner(serverOrigin, server)).Sign(checkpoint.Checkpoint{Session: "fixture-session",
			Size: int64(size), Tip: stepHash(good, size-1), Time: checkpointAt, Redact: sum("")}))
	}
	full, early := leafOf(n), leafOf(3)
	// Seven leaves: other sessions' checkpoints around ours.
	leaves := [][]byte{[]byte("a"), []byte("b"), early, []byte("c"), full, []byte("d"), []byte("e")}
	m := &memHashes{}
	for i, l := range leaves {
		m.h = append(m.h, must1(tlog.StoredHashes(int64(i), l, m))...)
	}
	size := int64(len(leaves))
	root := must1(tlog.TreeHash(size, m))
	logSigner, logVkey, err := translog.NewSigner(logOrigin, server)
	if err != nil {
		panic(err)
	}
	otherSigner, otherVkey, _ := translog.NewSigner(logOrigin, other)
	text := fmt.Sprintf("%s\n%d\n%s\n", logOrigin, size, base64.StdEncoding.EncodeToString(root[:]))
	signed := must1(note.Sign(&note.Note{Text: text}, logSigner))
	signedOther := must1(note.Sign(&note.Note{Text: text}, otherSigner))
	c1, w1v := cosign("witness-1.example", w1, signed)
	c2, w2v := cosign("witness-2.example", w2, signed)
	_ = c2
	cosigned := append(append([]byte{}, signed...), c1...)
	prove := func(i int64, leaf, cp []byte) *logproof.Proof {
		return &logproof.Proof{Extra: leaf, Index: i, Hashes: must1(tlog.ProveRecord(size, i, m)), Checkpoint: cp}
	}
	proofs := map[string]*logproof.Proof{
		"good.tlog-proof":         prove(4, full, cosigned),
		"no-cosig.tlog-proof":     prove(4, full, signed),
		"other-signer.tlog-proof": prove(4, full, append(append([]byte{}, signedOther...), c1...)),
		"early-leaf.tlog-proof":   prove(2, early, cosigned),
	}
	wrongIndex := *proofs["good.tlog-proof"]
	wrongIndex.Index = 5
	proofs["wrong-index.tlog-proof"] = &wrongIndex
	badHash := *proofs["good.tlog-proof"]
	badHash.Hashes = append([]tlog.Hash{}, badHash.Hashes...)
	badHash.Hashes[0][0] ^= 1
	proofs["bad-hash.tlog-proof"] = &badHash
	files := map[string][]byte{}
	for name, p := range proofs {
		files[logDir+"/proofs/"+name] = p.Format()
	}
	files[logDir+"/proofs/cut.tlog-proof"] = proofs["good.tlog-proof"].Format()[:200]
	policies := map[string]string{
		"w1.policy":        fmt.Sprintf("log %s\nwitness w1 %s\nquorum w1\n", logVkey, w1v),
		"both.policy":      fmt.Sprintf("log %s\nwitness w1 %s\nwitness w2 %s\ngroup both all w1 w2\nquorum both\n", logVkey, w1v, w2v),
		"any.policy":       fmt.Sprintf("# either witness will do\nlog %s\nwitness w1 %s\nwitness w2 %s\ngroup any1 any w1 w2\nquorum any1\n", logVkey, w1v, w2v),
		"none.policy":      fmt.Sprintf("log %s\nquorum none\n", logVkey),
		"other-log.policy": fmt.Sprintf("log %s\nwitness w1 %s\nquorum w1\n", otherVkey, w1v),
	}
	for name, p := range policies {
		files[logDir+"/policies/"+name] = []byte(p)
	}
	_ = serverPubKey
	cut := must(tamper.Apply(good, tamper.CutTail(2), tamper.FixCountAndTip, tamper.Resign(server)))
	opt := func(policy, proof string) options {
		return options{pubkey: []string{serverPub}, logPolicy: logDir + "/policies/" + policy, logProof: logDir + "/proofs/" + proof}
	}
	type fixture struct {
		rec []byte
		opt options
	}
	fx := map[string]fixture{
		"good_logged_w1.json":   {good, opt("w1.policy", "good.tlog-proof")},
		"good_logged_any.json":  {good, opt("any.policy", "good.tlog-proof")},
		"good_logged_none.json": {good, opt("none.policy", "no-cosig.tlog-proof")},

		"fail_LOG_PROOF_INVALID_wrong_index.json": {good, opt("w1.policy", "wrong-index.tlog-proof")},
		"fail_LOG_PROOF_INVALID_bad_hash.json":    {good, opt("w1.policy", "bad-hash.tlog-proof")},
		"fail_LOG_PROOF_INVALID_cut.json":         {good, opt("w1.policy", "cut.tlog-proof")},
		"fail_LOG_PROOF_INVALID_early_leaf.json":  {good, opt("w1.policy", "early-leaf.tlog-proof")},
		"fail_LOG_UNTRUSTED_other_log.json":       {good, opt("other-log.policy", "good.tlog-proof")},
		"fail_LOG_UNTRUSTED_other_signer.json":    {good, opt("w1.policy", "other-signer.tlog-proof")},
		"fail_WITNESS_QUORUM_no_cosig.json":       {good, opt("w1.policy", "no-cosig.tlog-proof")},
		"fail_WITNESS_QUORUM_both_needed.json":    {good, opt("both.policy", "good.tlog-proof")},
		"fail_TRUNCATED_logged_more.json":         {cut, opt("w1.policy", "good.tlog-proof")},
	}
	for name, f := range fx {
		files[logDir+"/"+name] = f.rec
		files[logDir+"/options/"+name] = f.opt.json()
	}
	return files
}
