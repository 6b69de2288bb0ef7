// Package gitleaks runs the rules of gitleaks' default configuration
// (rules.go, generated from github.com/zricethezav/gitleaks/v8 by gen)
// over clear text and reports the secrets they find, for package redact.
//
// A rule is considered only when one of its keywords occurs in the text,
// as in gitleaks, then only when every literal its regex requires occurs
// and, for the generic assignment rules, when an assignment leaves a
// value not yet replaced; only then is it compiled, once per process.
// Entropy floors and allowlists are gitleaks'. Two changes make the rules
// find more, never less: a secret may also end at & ? # / . ) > ] } , |
// (a key in a URL query or a file name), and the rules also run over the
// text with its %XX escapes decoded.
package gitleaks

//go:generate sh -c "cd gen && go run . -o ../rules.go"

// glRule is one rule of gitleaks' default configuration (rules.go).
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
