package orgpolicy

// GateEvent is data.event of a gate step: a name no harness sends, so a
// gate is never mistaken for the event it gates.
const GateEvent = "PolicyGate"

// Result is the decision for one call.
type Result struct {
	Decision Decision
	Rule     string // the rule that matched (or failed); "" for the default
	Reason   string
	Error    string // a rule's run-time failure, "CODE: detail"; "" when none
}
