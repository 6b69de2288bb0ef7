package redact

//go:generate sh -c "cd gitleaksgen && go run . -o ../gitleaks_rules.go"

// glRule is one rule of gitleaks' default configuration (gitleaks_rules.go).
type glRule struct {
	id       string
	re       string  // RE2 source
	group    int     // the secret's capturing group; 0: the first non-empty one, or the match
	entropy  float64 // the secret's Shannon entropy must exceed this (0: no floor)
	keywords []string
	need     [][]string // literals every match holds: one of each list (lower case)
	// assign > 0: the rule is gitleaks' assignment form, need[0] its names,
	// and a secret it finds is at least assign bytes (see assigns).
	assign int
	// namePrefix: gitleaks' regex started with (?i)[\w.-]{0,50}?, the rest
	// of a name before the word it looks for; re is without it, and the
	// match is widened by hand for allowlists that read it.
	namePrefix bool
	allow      []glAllow
}

// glAllow is a gitleaks allowlist reduced to what clear text can meet:
// regexes over the secret, the match or the line, and stop words.
type glAllow struct {
	and    bool // every condition must hold (else any one)
	target glTarget
	res    []string
	stop   []string // lower case
}

type glTarget uint8

const (
	glTargetSecret glTarget = iota
	glTargetMatch
	glTargetLine
)

// glKeyword is one keyword and the rules it selects.
type glKeyword struct {
	word  string
	rules []uint16
}
