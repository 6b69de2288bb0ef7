package orgpolicy

import (
	"fmt"
	"slices"
	"time"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// The members of a gate step that a held call's approval adds
// (docs/approvals.md). A hold step (decision hold) asks: ApprovalField
// names the approval, ExpiresField says until when it may be given,
// RequesterField who asked (when the server knew). Its resolution is the
// call's next gate step, right before the call's pre-event: decision
// allow or deny, the same ApprovalField, ApprovalOutcome saying what
// happened and ApproverField who decided (authenticated by the server:
// ApproverAttested true).
const (
	ApprovalField    = "approval"
	ExpiresField     = "expires"
	RequesterField   = "requester"
	ApprovalOutcome  = "approvalDecision"
	ApproverField    = "approver"
	ApproverAttested = "approverAttested"
)

// The outcomes of a held call.
const (
	Approved = "approved"
	Refused  = "denied"
	Expired  = "expired"
)

// approvalMismatch describes the first held call that went ahead (its
// pre-event was recorded, so the harness was let run it) without an
// approval that matches it, or an approval that does not match its hold:
//
//   - a pre-event whose call's last gate step is a hold, or that follows a
//     gate step not resolving the call's open hold;
//   - a resolution naming no hold, another call's hold, or a hold on
//     another input;
//   - one approval resolved twice (an approval is used once);
//   - an allow whose approval was given after the hold expired, names no
//     approver, is not "approved", or was given by the developer who asked.
//
// "" when none. A deny needs no approver (a timeout denies).
func approvalMismatch(views []stepView) string {
	holds := map[string]stepView{} // approval id → its hold step
	used := map[string]int{}       // approval id → seq of its resolution
	open := map[string]string{}    // toolUseId → approval id of its unresolved hold
	for i, v := range views {
		if v.event == GateEvent {
			dec, _ := v.d.GetString("decision")
			id, _ := v.d.GetString(ApprovalField)
			switch {
			case dec == string(Hold) && enforced(v):
				if id == "" {
					return fmt.Sprintf("step %d: a hold names no approval", v.seq)
				}
				if _, dup := holds[id]; dup {
					return fmt.Sprintf("step %d: approval %s is asked for twice", v.seq, id)
				}
				holds[id] = v
				open[v.toolUseID] = id
			case id != "":
				h, ok := holds[id]
				if !ok {
					return fmt.Sprintf("step %d: the gate names approval %s, which no hold step asked for", v.seq, id)
				}
				if s, twice := used[id]; twice {
					return fmt.Sprintf("step %d: approval %s was used at step %d already: an approval is used once", v.seq, id, s)
				}
				used[id] = v.seq
				if h.toolUseID != v.toolUseID || h.inputs != v.inputs {
					return fmt.Sprintf("step %d: approval %s was asked for %s with input %s (step %d), and decides %s with input %s", v.seq, id, callName(h), shortList(h.inputs), h.seq, callName(v), shortList(v.inputs))
				}
				if dec == string(Allow) {
					if d := allowedBy(v, h); d != "" {
						return fmt.Sprintf("step %d: %s lets %s run, but %s", v.seq, id, callName(v), d)
					}
				}
				if open[v.toolUseID] == id {
					delete(open, v.toolUseID)
				}
			}
			continue
		}
		if !slices.Contains(preEvents, v.event) {
			continue
		}
		if id, held := open[v.toolUseID]; held && (v.toolUseID != "" || i > 0 && views[i-1].event == GateEvent) {
			return fmt.Sprintf("step %d: %s of %s was held for approval %s (step %d) and went ahead with no approval", v.seq, v.event, callName(v), id, holds[id].seq)
		}
	}
	return ""
}

func enforced(v stepView) bool {
	e := v.d.Get("enforced")
	return e != nil && e.Kind == strictjson.True
}

// allowedBy says what is wrong with the allow v resolving hold h, "" when
// nothing.
func allowedBy(v, h stepView) string {
	if o, _ := v.d.GetString(ApprovalOutcome); o != Approved {
		return fmt.Sprintf("its %s is %q, not %q", ApprovalOutcome, o, Approved)
	}
	who, _ := v.d.GetString(ApproverField)
	if who == "" {
		return "it names no approver"
	}
	if a := v.d.Get(ApproverAttested); a == nil || a.Kind != strictjson.True {
		return "its approver is not attested by the server"
	}
	if asker, _ := h.d.GetString(RequesterField); asker != "" && asker == who {
		return fmt.Sprintf("it was approved by %s, who asked for it: self-approval", who)
	}
	exp, _ := h.d.GetString(ExpiresField)
	until, err := time.Parse(time.RFC3339Nano, exp)
	if err != nil {
		return fmt.Sprintf("its hold's %s %q is no instant", ExpiresField, exp)
	}
	if at, err := time.Parse(time.RFC3339Nano, v.at); err != nil || at.After(until) {
		return fmt.Sprintf("it was given at %s, after the approval expired at %s", v.at, exp)
	}
	return ""
}

// ApprovalMismatch is APPROVAL_MISMATCH's check alone, for a verified
// record judged without --policy-key: what its own gate steps say. It
// describes the first held call that went ahead without a matching
// approval, or returns "".
func ApprovalMismatch(rec []byte) string {
	views, c, _ := read(rec)
	if c != "" {
		return ""
	}
	return approvalMismatch(views)
}
