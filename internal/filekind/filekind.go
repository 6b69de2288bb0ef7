// Package filekind names, for logbook-verify, the logbook files that are
// not records: an in-progress session passed by mistake (an error), the
// other files a refusal as no record (SHAPE, NOT_JSON) may have been given
// (a hint after the verdict), and a record whose session's end once left
// it unsealed (a notice). It reads a file's bytes; it decides no verdict.
package filekind

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
	"github.com/logbook-project/logbook/internal/unsealed"
)

// NotARecord names the one file users most often pass by mistake: an
// in-progress session (ID.steps.jsonl), which is not a record until it is
// sealed. Anything else goes to the verifier, which names its refusal.
func NotARecord(file string, data []byte) error {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	header := `"format":"` + format.Journal + `"`
	if !strings.HasSuffix(file, ".steps.jsonl") && !format.Contains(first, header, strings.IndexByte(header, '@')) {
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

// Hint names, for a file refused as no record (SHAPE, NOT_JSON), the
// other logbook files it is and the command or flag that reads it; ""
// when it is none of them. The refusal stands: the hint comes after it.
func Hint(file string, data []byte) string {
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

// SealedLater is the notice for an accepted record that holds the note
// its session's end left when it found no signing key (unsealed.Event),
// "" for any other: the session was sealed later, by hand.
func SealedLater(data []byte) string {
	note := `"data":{"event":"` + unsealed.Event + `"}`
	if !format.Contains(data, note, strings.IndexByte(note, '{')) {
		return ""
	}
	return "notice: the session's end found no signing key and left it unsealed; it was sealed later (see its " + unsealed.Event + " note)"
}

// Unsealed is the verdict line for a record that is not there because
// its session's end could not seal it and left word beside it
// (unsealed.ForRecord); false when it left none.
func Unsealed(record string) (string, bool) {
	n, ok := unsealed.ForRecord(record)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("UNSEALED session %s: it ended at %s without being sealed (%s); seal it with: %s", n.Session, n.At, n.Reason, n.Fix), true
}
