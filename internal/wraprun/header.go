package wraprun

import (
	"crypto/rand"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/redact"
)

// Header is the in-progress file's header for a session that a wrapped
// command starts, as package wrap (appending to a session) and
// logbook-wrap --out (a one-shot record) both write it: the cwd redacted;
// recorderName, when not "", names the session's recorder (described
// once, when the header is written; warn is told when it cannot be) and
// its harness; agent, when not "", names the harness instead (redacted).
func Header(session, cwd string, red *redact.Redactor, recorderName, agent string, warn func(string)) journalfile.Header {
	hdr := journalfile.Header{Session: session, Cwd: red.String(cwd), Harness: "logbook"}
	if recorderName != "" {
		hdr.Harness = recorderName
		hdr.Describe = &recorder.Self{Name: recorderName, Warn: warn}
	}
	if agent != "" {
		hdr.Harness = red.String(agent)
	}
	return hdr
}

// NewID returns a new data.toolUseId for the two steps of one run.
func NewID() string { return "run_" + rand.Text() }
