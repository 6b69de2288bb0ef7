package logbook

import (
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Record is a verified record's content.
type Record struct {
	Verified
	Session Session
	Steps   []Step
}

// Session is a record's session header.
type Session struct {
	ID, Agent, Goal, Cwd string
	StartedAt, EndedAt   string    // RFC 3339 UTC
	Recorder             *Recorder // the program that captured the steps; nil when the record names none
}

// Recorder names the program that captured a session's steps: its name,
// version, and the SHA-256 (hex) of its executable file.
type Recorder = format.Recorder

// Step is one step of a record. A step holds digests and redacted
// metadata, never the bodies of what was read, written or run.
type Step struct {
	Seq     int64
	At      string // RFC 3339 UTC
	Kind    string // exec, edit, read, write, tool_call, claim, note or gate
	Summary string // short redacted clear text
	Data    []byte // the step's metadata object, canonical JSON
	Inputs  []string
	Outputs []string // hex SHA-256 digests of the bodies read and produced
	Prev    string   // the previous step's Hash; "" for the first step
	Hash    string
}

// Read verifies a record (as [Verify] does) and returns its content. A
// refused record is a *RefusalError, and nothing of it is returned: its
// steps would prove nothing.
func Read(data []byte, opt VerifyOptions) (*Record, error) {
	v, err := Verify(data, opt)
	if err != nil {
		return nil, err
	}
	root, err := strictjson.Parse(data, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		return nil, format.Refuse(format.NotJSON, err.Error()) // unreachable once verified
	}
	r := &Record{Verified: *v}
	s := root.Get("session")
	r.Session.ID, _ = s.GetString("id")
	r.Session.Agent, _ = s.GetString("agent")
	r.Session.Goal, _ = s.GetString("goal")
	r.Session.Cwd, _ = s.GetString("cwd")
	r.Session.StartedAt, _ = s.GetString("startedAt")
	r.Session.EndedAt, _ = s.GetString("endedAt")
	if rec := s.Get("recorder"); rec != nil {
		r.Session.Recorder = &Recorder{}
		r.Session.Recorder.Name, _ = rec.GetString("name")
		r.Session.Recorder.Version, _ = rec.GetString("version")
		r.Session.Recorder.SHA256, _ = rec.GetString("sha256")
	}
	steps := root.Get("steps")
	r.Steps = make([]Step, len(steps.Items))
	for i := range steps.Items {
		st, out := &steps.Items[i], &r.Steps[i]
		out.Seq = int64(i)
		out.At, _ = st.GetString("at")
		out.Kind, _ = st.GetString("kind")
		out.Summary, _ = st.GetString("summary")
		out.Prev, _ = st.GetString("prev")
		out.Hash, _ = st.GetString("hash")
		out.Inputs = strs(st.Get("inputsSha256"))
		out.Outputs = strs(st.Get("outputsSha256"))
		if out.Data, err = jcs.Append(nil, st.Get("data")); err != nil {
			return nil, format.Refuse(format.Shape, err.Error()) // unreachable once verified
		}
	}
	return r, nil
}

func strs(v *strictjson.Value) []string {
	out := make([]string, len(v.Items))
	for i := range v.Items {
		out[i] = v.Items[i].Str
	}
	return out
}
