package wraprun

import (
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/wraprun/files"
)

// The data.event values of the two steps of one wrapped command. They
// share data.toolUseId, as a hook's pre- and post-event do (spec §8), so
// the sealer can name a command that started and never ended.
const (
	EventStart = "logbook-wrap.start"
	EventEnd   = "logbook-wrap.end"
)

// Limits on clear text, in bytes, as for hook events: a record carries
// metadata, not bodies.
const (
	maxSummary = 200
	maxField   = 1000
)

// stream is what one output stream of the command amounted to.
type stream struct {
	sha256 string
	bytes  int64
	err    string // why the wrapper stopped passing it on, if it did
}

// facts are what the steps of one wrapped command say. Clear text is
// redacted when the steps are built.
type facts struct {
	red                           *redact.Redactor // the project's rules; nil: the built-in ones
	id, command, cwd, agent, goal string
	materials                     files.Snapshot

	// Known once the command ended (or failed to start).
	exitCode       int
	signal         string   // e.g. "SIGKILL" when a signal ended the command
	forwarded      []string // signals passed on to the command
	startErr       string   // why the command could not start
	durationMs     int64
	stdout, stderr stream
	products       []files.Change
	productsCut    bool // more products than the cap: see Diff
	heldOpen       bool // output was still open after the command exited
}

// startStep is appended before the command starts: if the wrapper is then
// killed outright, the record still shows that the command was started.
func startStep(at string, f *facts) chain.Step {
	d := data{red: f.red}
	d.str("event", EventStart)
	f.common(&d)
	if len(f.materials.Files) > 0 {
		d.add("materials", filesValue(f.red, f.materials.Files))
	}
	return chain.Step{
		At:      at,
		Kind:    "exec",
		Summary: summary(f.red, "exec: "+f.command),
		Data:    strictjson.Obj(d.m...),
		Inputs:  digests(f.materials.Files),
	}
}

// endStep is appended once the command has ended or failed to start.
func endStep(at string, f *facts) chain.Step {
	d := data{red: f.red}
	d.str("event", EventEnd)
	f.common(&d)
	d.int("exitCode", int64(f.exitCode))
	d.str("signal", f.signal)
	if len(f.forwarded) > 0 {
		d.add("forwardedSignals", strictjson.StrArr(f.forwarded))
	}
	d.str("startError", f.startErr)
	d.int("durationMs", f.durationMs)
	d.str("stdoutSha256", f.stdout.sha256)
	d.int("stdoutBytes", f.stdout.bytes)
	d.str("stdoutError", f.stdout.err)
	d.str("stderrSha256", f.stderr.sha256)
	d.int("stderrBytes", f.stderr.bytes)
	d.str("stderrError", f.stderr.err)
	if f.heldOpen {
		d.add("outputHeldOpen", strictjson.Bool(true))
	}
	outputs := []string{f.stdout.sha256, f.stderr.sha256}
	if len(f.products) > 0 {
		d.add("products", changesValue(f.red, f.products))
		for _, c := range f.products {
			if (c.Change == "new" || c.Change == "changed") && c.Sha256 != "" {
				outputs = append(outputs, c.Sha256)
			}
		}
	}
	if f.productsCut {
		d.add("productsTruncated", strictjson.Bool(true))
	}
	var what string
	switch {
	case f.startErr != "":
		what = fmt.Sprintf("exec not started (exit %d: %s)", f.exitCode, f.startErr)
	case f.signal != "":
		what = fmt.Sprintf("exec killed by %s (exit %d) after %d ms", f.signal, f.exitCode, f.durationMs)
	default:
		what = fmt.Sprintf("exec exit %d after %d ms", f.exitCode, f.durationMs)
	}
	return chain.Step{
		At:      at,
		Kind:    "exec",
		Summary: summary(f.red, what+": "+f.command),
		Data:    strictjson.Obj(d.m...),
		Inputs:  digests(f.materials.Files),
		Outputs: outputs,
	}
}

// common are the members both steps carry, so each reads on its own.
func (f *facts) common(d *data) {
	d.str("toolUseId", f.id)
	d.str("command", f.command)
	d.str("cwd", f.cwd)
	d.str("agent", f.agent)
	d.str("goal", f.goal)
}

// data builds a step's data object; empty strings are left out and every
// string passes the redactor (spec §8) and is bounded.
type data struct {
	m   []strictjson.Member
	red *redact.Redactor
}

func (d *data) add(k string, v strictjson.Value) {
	d.m = append(d.m, strictjson.Member{Key: k, Value: v})
}

// str adds a clear string, redacted whole before it is bounded.
func (d *data) str(k, v string) {
	if v != "" {
		d.add(k, strictjson.Str(redact.Clip(d.red.String(v), maxField)))
	}
}

func (d *data) int(k string, n int64) { d.add(k, strictjson.Int(n)) }

func filesValue(red *redact.Redactor, fs []files.File) strictjson.Value {
	items := make([]strictjson.Value, len(fs))
	for i, f := range fs {
		d := data{red: red}
		d.str("path", f.Path)
		fileMembers(&d, f)
		items[i] = strictjson.Obj(d.m...)
	}
	return strictjson.Arr(items...)
}

func fileMembers(d *data, f files.File) {
	if f.Err != "" {
		d.str("error", f.Err)
		return
	}
	if f.Sha256 != "" {
		d.add("sha256", strictjson.Str(f.Sha256))
		d.int("bytes", f.Bytes)
	}
}

func changesValue(red *redact.Redactor, cs []files.Change) strictjson.Value {
	items := make([]strictjson.Value, len(cs))
	for i, c := range cs {
		d := data{red: red}
		d.str("path", c.Path)
		d.str("change", c.Change)
		fileMembers(&d, c.File)
		if c.Before != "" {
			d.add("sha256Before", strictjson.Str(c.Before))
		}
		items[i] = strictjson.Obj(d.m...)
	}
	return strictjson.Arr(items...)
}

// digests lists the digests of the files that could be read, in order.
func digests(fs []files.File) []string {
	var out []string
	for _, f := range fs {
		if f.Sha256 != "" {
			out = append(out, f.Sha256)
		}
	}
	return out
}

// summary is one redacted line of at most maxSummary bytes: redacted
// first, as sent, then joined into one line and shortened.
func summary(red *redact.Redactor, s string) string {
	s = red.String(s)
	if strings.ContainsAny(s, "\r\n") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return redact.Clip(s, maxSummary)
}
