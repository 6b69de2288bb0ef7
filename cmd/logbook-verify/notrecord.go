package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// notARecord names the one file users most often pass by mistake: an
// in-progress session (ID.steps.jsonl), which is not a record until it is
// sealed. Anything else goes to the verifier, which names its refusal.
func notARecord(file string, data []byte) error {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if !strings.HasSuffix(file, ".steps.jsonl") && !bytes.Contains(first, []byte(`"format":"`+format.Journal+`"`)) {
		return nil
	}
	id := strings.TrimSuffix(filepath.Base(file), ".steps.jsonl")
	if rec := filepath.Join(filepath.Dir(file), id+".record.json"); exists(rec) {
		// Sealed already: the record is beside it, and sealing again
		// is not the fix.
		return fmt.Errorf("%s is a session's in-progress file (%s), not a record; the session is sealed: verify its record, logbook-verify %s", file, format.Journal, rec)
	}
	return fmt.Errorf("%s is an unsealed session (%s), not a record: seal it with logbook-seal --dir %s --session %s, then verify ID.record.json (or watch it with logbook-verify --follow %s)",
		file, format.Journal, filepath.Dir(file), id, file)
}

func exists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// whatFile names, for a file refused as no record (SHAPE, NOT_JSON), the
// other logbook files it is and the command or flag that reads it; ""
// when it is none of them. The refusal stands: the hint comes after it.
func whatFile(file string, data []byte) string {
	head := data[:min(len(data), 4096)]
	t := strings.TrimSpace(string(head))
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	switch {
	case has(`"` + bundle.Format + `"`):
		return file + " is a hand-over bundle (" + bundle.Format + "): verify it with logbook-verify --bundle " + file + " --trust KEYS (docs/bundle.md)"
	case has(`"`+orgpolicy.Version+`"`) && has(`"signature"`):
		return file + " is a signed organization policy (" + orgpolicy.Version + "): check it with logbook-policy verify --policy-key PUB " + file + "; records gated by it are verified with logbook-verify --policy-key PUB RECORD (docs/policy.md)"
	case has(`"` + orgpolicy.Version + `"`):
		return file + " is an organization policy (" + orgpolicy.Version + "), unsigned: sign it with logbook-policy sign --key KEY " + file + " (docs/policy.md)"
	case has("\n" + checkpoint.Version + "\n"):
		return file + " is a logbook-server's signed checkpoint (" + checkpoint.Version + "): give it with its record, logbook-verify --checkpoint " + file + " --checkpoint-key PUB RECORD (docs/checkpoint.md)"
	case strings.HasPrefix(t, logproof.Header):
		return file + " is a proof of logging (" + logproof.Header + "): give it with its record, logbook-verify --log-proof " + file + " --log-policy POLICY RECORD (docs/log.md)"
	case has(`"payloadType"`) && has(`"`+attest.PayloadType+`"`):
		return file + " is a DSSE attestation about a record: logbook-verify --attestation " + file + " --attestor-key PUB RECORD"
	case strings.HasPrefix(t, "-----BEGIN PUBLIC KEY-----"):
		return file + " is a public key: pass it as --pubkey " + file + " (the record's signer), --checkpoint-key or --trust, with the record to verify"
	case strings.Contains(t, "PRIVATE KEY-----"):
		return file + " is a private key: a verifier needs only the public one (KEY.pub); keep this one to yourself"
	case keys.NoteVerifierKey(t):
		return file + " is a signed-note verifier key (a logbook-server's checkpoint key): pass it as --checkpoint-key " + file + " with the record to verify"
	}
	return ""
}
