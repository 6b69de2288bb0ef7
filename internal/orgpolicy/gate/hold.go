package gate

import (
	"fmt"
	"slices"

	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// A call decided hold is recorded twice (docs/approvals.md): Asked, the
// request, when it is parked for an approver; then Resolve's step, the
// decision, right before the call's own pre-event. orgpolicy's
// APPROVAL_MISMATCH check reads both.

// Asked is v's gate step (decision hold) as the request for approval id,
// open until expires (an instant of spec §4), asked by requester ("":
// not known).
func Asked(v *Verdict, id, expires, requester string) Verdict {
	out := *v
	m := append(slices.Clone(v.Step.Data.Members), str(orgpolicy.ApprovalField, id), str(orgpolicy.ExpiresField, expires))
	if requester != "" {
		m = append(m, str(orgpolicy.RequesterField, requester))
	}
	out.Step.Data = strictjson.Obj(m...)
	out.Step.Summary = v.Step.Summary + " waits for approval " + id[:min(8, len(id))]
	return out
}

// Resolve turns the held verdict v into its resolution: decision dec
// (allow or deny) for approval id ("": none, the request was never
// recorded), by approver (authenticated by the server, so attested; "":
// nobody decided), why saying so for the hook's answer.
func Resolve(v *Verdict, id string, dec orgpolicy.Decision, approver, why string) {
	outcome := orgpolicy.Expired
	switch {
	case dec == orgpolicy.Allow:
		outcome = orgpolicy.Approved
	case approver != "":
		outcome = orgpolicy.Refused
	}
	reason := "held for an approver"
	if v.Reason != "" {
		reason = v.Reason
	}
	reason += "; " + why
	var keep []strictjson.Member
	for _, m := range v.Step.Data.Members {
		switch m.Key {
		case "decision", "reason":
		case "enforced": // decision before enforced, as the gate writes them
			keep = append(keep, str("decision", string(dec)), m)
		default:
			keep = append(keep, m)
		}
	}
	keep = append(keep, str("reason", redact.Clip(redact.String(reason), 1024)))
	if id != "" {
		keep = append(keep, str(orgpolicy.ApprovalField, id), str(orgpolicy.ApprovalOutcome, outcome))
	}
	if approver != "" {
		keep = append(keep, str(orgpolicy.ApproverField, approver), strictjson.Member{Key: orgpolicy.ApproverAttested, Value: strictjson.Bool(true)})
	}
	tool, _ := v.Step.Data.GetString("tool")
	v.Step.Data = strictjson.Obj(keep...)
	v.Step.Summary = fmt.Sprintf("policy %s %s (%s): %s", dec, tool, v.Rule, redact.Clip(why, 200))
	v.Decision, v.Reason = dec, reason
}

func str(k, s string) strictjson.Member { return strictjson.Member{Key: k, Value: strictjson.Str(s)} }
