package verdict

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
)

// jsonResult is the --json output: exactly these keys, nulls where unknown.
type jsonResult struct {
	File      string  `json:"file,omitempty"` // with several records
	OK        bool    `json:"ok"`
	Code      *string `json:"code"`
	Detail    string  `json:"detail"`
	RecordID  *string `json:"recordId"`
	KeyID     *string `json:"keyId"`
	StepCount *int64  `json:"stepCount"`
	// Level is the assurance level of an accepted record (local,
	// server); null when refused.
	Level *string `json:"level"`
	jsonPolicy
	Checkpoints []jsonCheckpoint `json:"checkpoints"`
	// Log is the proof of logging that held (level logged), else null.
	Log *jsonLog `json:"log"`
	// Gaps counts missing and repeated events in an accepted record (or
	// one refused only by policy): facts about the session, not refusals.
	Gaps *gaps.Counts `json:"gaps"`
	// Gate is step 12's summary when --policy-key accepted the record
	// (docs/policy.md §8); absent otherwise.
	Gate *orgpolicy.Summary `json:"gate,omitempty"`
	// Actors are who sent the events, attested and asserted, when a
	// fleet's server wrote them (docs/fleet.md); absent otherwise.
	Actors *Actors `json:"actors,omitempty"`
	// Warnings say what an accepted verdict does not show (Warnings):
	// [] when there is nothing to say, null when refused.
	Warnings []string `json:"warnings"`
}

type jsonLog struct {
	Origin   string   `json:"origin"`
	Index    int64    `json:"index"`
	Size     int64    `json:"size"`
	Cosigned []string `json:"cosigned"`
}

type jsonCheckpoint struct {
	Origin string `json:"origin"`
	Size   int64  `json:"size"`
	Time   string `json:"time"`
	KeyID  string `json:"keyId"`
}

// IOError is the --json object for a file that could not be read or a
// bad flag: ok false, code null, the error as detail.
func IOError(w io.Writer, file string, err error) {
	WriteJSON(w, Outcome{File: file, Result: record.Result{Detail: err.Error()}})
}

// WriteJSON writes the --json object and a newline. For an accepted
// record, detail says whether the signer was pinned.
func WriteJSON(w io.Writer, o Outcome) {
	r := o.Result
	out := jsonResult{File: o.File, OK: r.OK, Detail: r.Detail, jsonPolicy: policyJSON(o.Report), Checkpoints: []jsonCheckpoint{}}
	if r.OK && o.Pinned {
		out.Detail += "; signer pinned"
	} else if r.OK {
		out.Detail += "; signer not pinned: integrity only, not authorship"
	}
	if r.Code != "" {
		code := string(r.Code)
		out.Code = &code
	}
	if r.RecordID != "" {
		out.RecordID, out.KeyID, out.StepCount = &r.RecordID, &r.KeyID, &r.StepCount
		out.Gaps = &r.Gaps
	}
	if o.Level != "" {
		out.Level = &o.Level
		if l := o.Logged; l != nil {
			out.Log = &jsonLog{Origin: l.Origin, Index: l.Index, Size: l.Size, Cosigned: append([]string{}, l.Cosigned...)}
		}
		for _, c := range o.Checkpoint.Covered {
			out.Checkpoints = append(out.Checkpoints, jsonCheckpoint{Origin: c.Origin, Size: c.Size, Time: c.Time, KeyID: c.KeyID})
		}
		out.Warnings = append([]string{}, Warnings(o)...)
	}
	out.Gate, out.Actors = o.Gate, o.Actors
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
}

// WriteHuman writes the one-line verdict (and a line of gaps, if any).
func WriteHuman(w io.Writer, o Outcome) {
	r := o.Result
	if !r.OK {
		// A detail can quote the record (an actor's names): shown as
		// review shows a record's text, so it cannot steer a terminal.
		fmt.Fprintf(w, "REFUSED %s: %s\n", r.Code, review.Clean(r.Detail))
		return
	}
	signer := "unpinned"
	note := " (integrity only: the record is unchanged since it was signed, but nothing says who signed it; pass --pubkey to check the signer)"
	if o.Pinned {
		signer, note = "pinned", ""
	}
	fmt.Fprintf(w, "OK recordId=%s keyId=%s steps=%d signer=%s level=%s%s%s%s%s\n", r.RecordID, r.KeyID, r.StepCount, signer, o.Level,
		checkpointHuman(o), policyHuman(o.Report), gateHuman(o), note)
	if g := r.Gaps; g.Total() > 0 {
		fmt.Fprintf(w, "gaps: %d unfinished tool call(s), %d duplicated pre-event(s), %d duplicated post-event(s), %d post-event(s) without a pre-event, session start missing: %v%s\n",
			g.UnfinishedToolCalls, g.DuplicatePreEvents, g.DuplicatePostEvents, g.PostWithoutPre, g.MissingSessionStart == 1, moreGaps(g))
		printGapIDs(w, g.ToolUseIDs)
	}
	if g := r.Gaps; g.DeniedToolCalls > 0 {
		fmt.Fprintf(w, "denied: %d tool call(s) the organization policy denied, not run (no gap)\n", g.DeniedToolCalls)
		if g.ToolUseIDs != nil {
			printIDs(w, "denied", g.ToolUseIDs.Denied)
		}
	}
	for _, warn := range Warnings(o) {
		fmt.Fprintln(w, "warning:", warn)
	}
}

// moreGaps names the gaps that only some records have, when they have them.
func moreGaps(g gaps.Counts) string {
	var b strings.Builder
	if g.AfterSessionEnd > 0 {
		fmt.Fprintf(&b, ", %d event(s) after a SessionEnd", g.AfterSessionEnd)
	}
	if g.UnsentEvents > 0 {
		fmt.Fprintf(&b, ", %d event(s) the hook could not send to the server", g.UnsentEvents)
	}
	if g.ServerRefused > 0 {
		fmt.Fprintf(&b, ", %d event(s) the server refused and did not record (a full disk, a failed write)", g.ServerRefused)
	}
	if g.SequenceHoles > 0 {
		fmt.Fprintf(&b, ", %d event(s) the hook numbered that never reached the server", g.SequenceHoles)
	}
	if g.SequenceResets > 0 {
		fmt.Fprintf(&b, ", the hook's event count went back %d time(s): loss before that cannot be ruled out", g.SequenceResets)
	}
	return b.String()
}

// LocalWarning is what level local does not show, in one line: the text
// output, --json's warnings and logbook-verify --help say it.
const LocalWarning = "level=local: nothing outside the record vouches for it; whoever held the signing key (in a local install, the recorded agent's own user) could have rewritten, cut or left events out of it (use logbook-server for level server)"

// UndeliveredWarning is said of every accepted record at level server or
// logged: the server vouches for what reached it. What never reached it
// is named when the server refused it or the hook's numbering shows a
// hole, but that count is kept in the agent's own folder, and Claude
// Code's HTTP hooks send none (docs/server.md, "Events the server never
// saw"): loss before the server cannot be ruled out at this level.
const UndeliveredWarning = "complete as far as the server saw: events that never reached it are named when the server refused them or the hook's numbering shows a hole, but that count is kept where the agent can edit it (and HTTP hooks send none), so loss before the server cannot be ruled out"

// StaleWarning is said of an accepted record at level server or logged
// whose freshness was not checked: an earlier checkpoint, kept and handed
// over, verifies as well as the latest one.
const StaleWarning = "freshness not checked: a later checkpoint of this session may exist (pass --log-tiles with --log-policy to require that this is the session's latest logged checkpoint)"

// Warnings are the lines an accepted verdict adds (none when refused).
func Warnings(o Outcome) []string {
	if !o.Result.OK || o.Level == "" {
		return nil
	}
	var w []string
	if o.InputMismatch != "" {
		w = append(w, InputMismatchWarning(o.InputMismatch))
	}
	if o.DeniedRan != "" {
		w = append(w, DeniedRanWarning(o.DeniedRan))
	}
	if o.ApprovalMismatch != "" {
		w = append(w, ApprovalMismatchWarning(o.ApprovalMismatch))
	}
	if o.Level == checkpoint.LevelLocal {
		w = append(w, LocalWarning)
	} else {
		if !o.Fresh {
			w = append(w, StaleWarning)
		}
		w = append(w, UndeliveredWarning)
	}
	if o.UncheckedGates > 0 {
		w = append(w, UncheckedGatesWarning(o.UncheckedGates))
	}
	return w
}

func checkpointHuman(o Outcome) string {
	var b strings.Builder
	for _, c := range o.Checkpoint.Covered {
		fmt.Fprintf(&b, " checkpoint=%s:%d@%s", c.Origin, c.Size, c.Time)
	}
	if l := o.Logged; l != nil {
		fmt.Fprintf(&b, " log=%s:%d/%d cosigned=%d", l.Origin, l.Index, l.Size, len(l.Cosigned))
	}
	return b.String()
}

// jsonPolicy are the --json keys the policy checks add.
type jsonPolicy struct {
	Timestamp    *jsonTimestamp    `json:"timestamp"`
	Identity     *string           `json:"identity"`
	Attestations []jsonAttestation `json:"attestations"`
}

type jsonTimestamp struct {
	Time      *string `json:"time"`
	Authority *string `json:"authority"`
	Trusted   bool    `json:"trusted"`
}

type jsonAttestation struct {
	Type  string `json:"type"`
	KeyID string `json:"keyId"`
}

func policyJSON(rep policy.Report) jsonPolicy {
	out := jsonPolicy{Attestations: []jsonAttestation{}}
	if t := rep.Timestamp; t != nil {
		out.Timestamp = &jsonTimestamp{Trusted: t.Trusted}
		if t.Problem == "" {
			when := t.Time.UTC().Format(time.RFC3339Nano)
			out.Timestamp.Time, out.Timestamp.Authority = &when, &t.Authority
		}
	}
	if rep.Identity != "" {
		out.Identity = &rep.Identity
	}
	for _, a := range rep.Attestations {
		out.Attestations = append(out.Attestations, jsonAttestation{Type: a.Type, KeyID: a.AttestorKeyID})
	}
	return out
}

// policyHuman is what the one-line verdict adds for an accepted record.
func policyHuman(rep policy.Report) string {
	var b strings.Builder
	if t := rep.Timestamp; t != nil {
		switch {
		case t.Problem != "":
			fmt.Fprintf(&b, " timestamp=unreadable (not checked: %s)", t.Problem)
		case t.Trusted:
			fmt.Fprintf(&b, " timestamp=%s tsa=%q (trusted)", t.Time.UTC().Format(time.RFC3339Nano), t.Authority)
		default:
			fmt.Fprintf(&b, " timestamp=%s tsa=%q (not checked: pass --tsa-roots)", t.Time.UTC().Format(time.RFC3339Nano), t.Authority)
		}
	}
	if rep.Identity != "" {
		fmt.Fprintf(&b, " identity=%s", rep.Identity)
	}
	for _, a := range rep.Attestations {
		fmt.Fprintf(&b, " attested=%s:%s", a.Type, a.AttestorKeyID)
	}
	return b.String()
}
