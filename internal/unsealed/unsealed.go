// Package unsealed keeps the notice a session-end hook leaves when it
// could not seal (no signing key): a file DIR/ID.unsealed beside the
// in-progress file, and a note step in the session itself, so that the
// missing seal is seen (logbook-verify reports it) instead of being one
// line in errors.log. The note stays in the record once the session is
// sealed later; the file goes then.
package unsealed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Event names the note step in data.event.
const Event = "logbook.unsealed"

// Notice is what the file holds.
type Notice struct {
	Session string `json:"session"`
	At      string `json:"at"`     // when the session ended unsealed
	Reason  string `json:"reason"` // why it could not be sealed
	Fix     string `json:"fix"`    // the command that seals it
}

// Path is the notice file of a session.
func Path(dir, session string) string { return filepath.Join(dir, session+".unsealed") }

// Leave appends the note step to the session and writes the notice file.
func Leave(dir, session, at, reason string) (Notice, error) {
	n := Notice{Session: session, At: at, Reason: reason,
		Fix: "logbook-seal --dir " + dir + " --session " + session + " --key FILE (make a key with logbook-seal --new-key ~/.config/logbook/signing.key)"}
	j, err := journalfile.Open(dir, session)
	if err != nil {
		return n, err
	}
	st := chain.Step{At: at, Kind: "note",
		Summary: "session ended without being sealed: no signing key",
		Data:    strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str(Event)})}
	_, err = j.Append(journalfile.Header{Session: session}, []chain.Step{st})
	if cerr := j.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	b, _ := json.MarshalIndent(n, "", "  ")
	return n, durable.WriteFileMode(Path(dir, session), append(b, '\n'), 0o600)
}

// Clear removes the notice file once the session is sealed.
func Clear(dir, session string) { os.Remove(Path(dir, session)) }

// ForRecord reads the notice of the session a record path names
// (DIR/ID.record.json → DIR/ID.unsealed), if there is one.
func ForRecord(recordPath string) (Notice, bool) {
	base, ok := strings.CutSuffix(recordPath, ".record.json")
	if !ok {
		return Notice{}, false
	}
	b, err := readlimit.Small(base+".unsealed", readlimit.Policy)
	if err != nil {
		return Notice{}, false
	}
	var n Notice
	if json.Unmarshal(b, &n) != nil || n.Session == "" {
		n = Notice{Session: filepath.Base(base), Reason: "unreadable notice"}
	}
	return n, true
}
