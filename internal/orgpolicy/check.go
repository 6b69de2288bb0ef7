package orgpolicy

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Checks of a record under --policy-key (docs/policy.md §8): the record
// must have verified already (spec §7 steps 1-10); these codes come
// after, in this order, each the first breach in step order:
//
//   - POLICY_MISSING: a gate step names no policy (the hook could not load
//     one), or the record has tool calls and no gate step at all;
//   - POLICY_UNTRUSTED: a gate step's policy signature does not verify, is
//     by a key not given, or (with a required digest) names another policy;
//   - GATE_MISSING: a tool call's pre-event is not right after its gate
//     step, or a post-event has no gate step before it;
//   - GATE_INPUT_MISMATCH: a call's pre-event (or post-event) digests
//     another input than its gate step: the gate decided on another call;
//   - DENIED_CALL_RAN: an enforced deny is followed by its call's
//     post-event: the tool ran anyway;
//   - APPROVAL_MISMATCH: a held call went ahead without an approval that
//     matches it (approval.go).

// callEvents are the events of a tool call that must be gated.
var (
	preEvents  = []string{"PreToolUse"}
	postEvents = []string{"PostToolUse", "PostToolUseFailure"}
)

type stepView struct {
	seq       int
	event     string
	gated     string
	toolUseID string
	inputs    string
	at        string
	d         *strictjson.Value
}

// Summary is what an accepted record's gate steps say: the policies
// (digests, in order of first use), and how many calls were gated and
// denied (enforced denials).
type Summary struct {
	Policies []string `json:"policies"`
	Gates    int      `json:"gates"`
	Denied   int      `json:"denied"`
}

// CheckRecord judges a verified record's gate steps. trusted are the
// --policy-key keys (at least one); require, when not "", is the only
// policy digest accepted. It returns "" when every check passes.
func CheckRecord(rec []byte, trusted []ed25519.PublicKey, require string) (format.Code, string) {
	c, d, _ := CheckRecordSummary(rec, trusted, require)
	return c, d
}

// CheckRecordSummary is CheckRecord with the summary of an accepted
// record's gates.
func CheckRecordSummary(rec []byte, trusted []ed25519.PublicKey, require string) (format.Code, string, Summary) {
	c, d, views := judge(rec, trusted, require)
	var sum Summary
	if c != "" {
		return c, d, sum
	}
	sum.Policies = []string{}
	for _, v := range views {
		if v.event != GateEvent {
			continue
		}
		sum.Gates++
		if dec, _ := v.d.GetString("decision"); dec == string(Deny) {
			if en := v.d.Get("enforced"); en != nil && en.Kind == strictjson.True {
				sum.Denied++
			}
		}
		if p, _ := v.d.GetString("policy"); !slices.Contains(sum.Policies, p) {
			sum.Policies = append(sum.Policies, p)
		}
	}
	return "", "", sum
}

// judge runs the checks; views are the steps as read, for the summary.
func judge(rec []byte, trusted []ed25519.PublicKey, require string) (format.Code, string, []stepView) {
	views, c, d := read(rec)
	if c != "" {
		return c, d, nil
	}
	gates, calls := 0, 0
	for _, v := range views {
		if v.event == GateEvent {
			gates++
		}
		if slices.Contains(preEvents, v.event) || slices.Contains(postEvents, v.event) {
			calls++
		}
	}
	if gates == 0 && calls > 0 {
		return format.PolicyMissing, fmt.Sprintf("%d tool-call steps and no gate step: no policy was in force", calls), views
	}
	for _, v := range views {
		if v.event == GateEvent {
			if s, _ := v.d.GetString("policy"); s == "" {
				e, _ := v.d.GetString("error")
				return format.PolicyMissing, fmt.Sprintf("step %d: the gate ran without a policy (%s)", v.seq, e), views
			}
		}
	}
	checked := map[string]bool{}
	for _, v := range views {
		if v.event != GateEvent {
			continue
		}
		digest, _ := v.d.GetString("policy")
		key, _ := v.d.GetString("policyKey")
		sig, _ := v.d.GetString("policySignature")
		if require != "" && digest != require {
			return format.PolicyUntrusted, fmt.Sprintf("step %d: policy %s, required %s", v.seq, digest, require), views
		}
		id := digest + key + sig
		if checked[id] {
			continue
		}
		s, err := VerifySignature(digest, key, sig)
		if err != nil {
			return format.PolicyUntrusted, fmt.Sprintf("step %d: policy %s: %v", v.seq, digest, err), views
		}
		if !trustedKey(s.Key, trusted) {
			return format.PolicyUntrusted, fmt.Sprintf("step %d: policy %s is signed by key %s, not a --policy-key", v.seq, digest, keyID(s.Key)), views
		}
		checked[id] = true
	}
	gatedIDs := map[string]int{} // toolUseId → seq of its first gate
	for i, v := range views {
		switch {
		case v.event == GateEvent:
			if _, ok := gatedIDs[v.toolUseID]; !ok && v.toolUseID != "" {
				gatedIDs[v.toolUseID] = v.seq
			}
		case slices.Contains(preEvents, v.event):
			if i == 0 || !gates1(views[i-1], v) {
				return format.GateMissing, fmt.Sprintf("step %d: %s of %s has no gate step right before it", v.seq, v.event, callName(v)), views
			}
		case slices.Contains(postEvents, v.event) && v.toolUseID != "":
			if _, ok := gatedIDs[v.toolUseID]; !ok {
				return format.GateMissing, fmt.Sprintf("step %d: %s of %s, and no gate step decided that call", v.seq, v.event, callName(v)), views
			}
		}
	}
	if d := inputMismatch(views); d != "" {
		return format.GateInputMismatch, d, views
	}
	if d := deniedRan(views); d != "" {
		return format.DeniedCallRan, d, views
	}
	if d := approvalMismatch(views); d != "" {
		return format.ApprovalMismatch, d, views
	}
	return "", "", views
}

// inputMismatch describes the first pre- or post-event whose input
// digests are not its gate step's: the gate decided on one input and the
// call that ran had another (a hook binary swapped for one that shows the
// gate a harmless command, or another hook that rewrote the input after
// the gate). A pre-event is compared with the gate step right before it
// (the same append), a post-event that carries an input with the call's
// latest gate step, unless the policy's redaction pointers changed the
// gated input (data.inputRedacted): the post-event is recorded without
// them. "" when none.
func inputMismatch(views []stepView) string {
	last := map[string]stepView{} // toolUseId → its latest gate step
	for i, v := range views {
		switch {
		case v.event == GateEvent:
			if v.toolUseID != "" {
				last[v.toolUseID] = v
			}
		case slices.Contains(preEvents, v.event):
			if g := views[i-1]; g.inputs != v.inputs {
				return fmt.Sprintf("step %d: %s of %s digests input %s, its gate step %d decided on %s", v.seq, v.event, callName(v), shortList(v.inputs), g.seq, shortList(g.inputs))
			}
		case slices.Contains(postEvents, v.event) && v.toolUseID != "" && v.inputs != "":
			g, ok := last[v.toolUseID]
			if !ok || g.inputs == v.inputs {
				continue
			}
			if r := g.d.Get(RedactedField); r != nil && r.Kind == strictjson.True {
				continue
			}
			return fmt.Sprintf("step %d: %s of %s digests input %s, its gate step %d decided on %s", v.seq, v.event, callName(v), shortList(v.inputs), g.seq, shortList(g.inputs))
		}
	}
	return ""
}

// shortList is a step's input digests as read (each followed by a comma),
// each cut to 16 hex digits, or "none".
func shortList(in string) string {
	var out []string
	for _, d := range strings.Split(strings.TrimSuffix(in, ","), ",") {
		if len(d) > 16 {
			d = d[:16]
		}
		if d != "" {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}

// read gives each step of a verified record as the checks see it.
func read(rec []byte) ([]stepView, format.Code, string) {
	root, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		return nil, format.NotJSON, err.Error() // unreachable after record.Verify
	}
	steps := root.Get("steps")
	if steps == nil || steps.Kind != strictjson.Array {
		return nil, format.Shape, "no steps" // unreachable after record.Verify
	}
	views := make([]stepView, len(steps.Items))
	for i := range steps.Items {
		st := &steps.Items[i]
		d := st.Get("data")
		v := stepView{seq: i, d: d}
		v.event, _ = d.GetString("event")
		v.gated, _ = d.GetString("gated")
		v.toolUseID, _ = d.GetString("toolUseId")
		v.at, _ = st.GetString("at")
		if in := st.Get("inputsSha256"); in != nil {
			for _, it := range in.Items {
				v.inputs += it.Str + ","
			}
		}
		views[i] = v
	}
	return views, "", ""
}

// deniedRan describes the first post-event of a call that an enforced
// deny of its gate step stopped: the tool ran anyway. "" when none.
func deniedRan(views []stepView) string {
	denied := map[string]int{}
	for _, v := range views {
		switch {
		case v.event == GateEvent && v.toolUseID != "":
			dec, _ := v.d.GetString("decision")
			if en := v.d.Get("enforced"); dec == string(Deny) && en != nil && en.Kind == strictjson.True {
				denied[v.toolUseID] = v.seq
			}
		case slices.Contains(postEvents, v.event) && v.toolUseID != "":
			if g, ok := denied[v.toolUseID]; ok {
				return fmt.Sprintf("step %d: %s of %s, which the gate at step %d denied", v.seq, v.event, callName(v), g)
			}
		}
	}
	return ""
}

// DeniedCallRan is DENIED_CALL_RAN's check alone, for a verified record
// judged without --policy-key: what the record's own gate steps say,
// whoever signed the policy. It describes the first denied call that ran
// anyway, or returns "".
func DeniedCallRan(rec []byte) string {
	views, c, _ := read(rec)
	if c != "" {
		return ""
	}
	return deniedRan(views)
}

// InputMismatch is GATE_INPUT_MISMATCH's check alone, for a verified
// record judged without --policy-key: what the record's own steps say,
// whoever signed the policy. It describes the first call whose input is
// not the one its gate step decided on, or returns "".
func InputMismatch(rec []byte) string {
	views, c, _ := read(rec)
	if c != "" {
		return ""
	}
	// inputMismatch reads a pre-event's gate as the step before it,
	// which only a record that passed GATE_MISSING guarantees.
	for i, v := range views {
		if slices.Contains(preEvents, v.event) && (i == 0 || !gates1(views[i-1], v)) {
			return ""
		}
	}
	return inputMismatch(views)
}

// gates1 reports whether g is the gate step of the pre-event p: the same
// toolUseId, or, when the harness gives none, the same input digests.
func gates1(g, p stepView) bool {
	if g.event != GateEvent || g.gated != p.event {
		return false
	}
	if p.toolUseID != "" || g.toolUseID != "" {
		return g.toolUseID == p.toolUseID
	}
	return g.inputs == p.inputs
}

func callName(v stepView) string {
	tool, _ := v.d.GetString("tool")
	if v.toolUseID != "" {
		return fmt.Sprintf("%s call %s", tool, v.toolUseID)
	}
	return tool + " call"
}
