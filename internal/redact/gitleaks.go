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
	assign   bool       // need[0] is a name that an assignment operator follows (see glAssigns)
	allow    []glAllow
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
