package orgpolicy

// Reasons a policy is not used, the first word of an *Error: what the hook
// prints, logs and records in the gate step, and what logbook-policy
// verify names.
const (
	ErrTooLarge    = "POLICY_TOO_LARGE"     // the file is over MaxFile bytes
	ErrMalformed   = "POLICY_MALFORMED"     // not strict JSON, or not the shape of docs/policy.md
	ErrSignature   = "POLICY_SIGNATURE"     // the signature does not verify, or the key is weak
	ErrUntrusted   = "POLICY_KEY_UNTRUSTED" // signed by a key that is not one of the trusted keys
	ErrRuleSyntax  = "POLICY_RULE_SYNTAX"   // a rule's CEL does not parse or type-check
	ErrRedactScope = "POLICY_REDACT_SCOPE"  // a redaction pointer selects what it may not
	ErrUnreadable  = "POLICY_UNREADABLE"    // the file or the key cannot be read
	// Evaluation, per call (the gate step's data.error):
	ErrRuleRuntime = "RULE_ERROR" // a rule failed at run time (a missing field, a bad regexp)
	ErrRuleCost    = "RULE_COST"  // a rule went over the cost limit or the time limit
)

// Error is a named failure of a policy or of a rule.
type Error struct {
	Code   string
	Detail string
}

func (e *Error) Error() string { return e.Code + ": " + e.Detail }

func fail(code, detail string) *Error { return &Error{Code: code, Detail: detail} }
