package gitleaks

// ASCII byte classes and case folding: everything the rules' prefilters
// decide on is ASCII (package redact has the same small set).

func isLower(c byte) bool { return c-'a' < 26 }
func isUpper(c byte) bool { return c-'A' < 26 }
func isDigit(c byte) bool { return c-'0' < 10 }
func isAlnum(c byte) bool { return (c|0x20)-'a' < 26 || isDigit(c) }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func lower(c byte) byte {
	if isUpper(c) {
		return c | 0x20
	}
	return c
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(s[i]) != lower(prefix[i]) {
			return false
		}
	}
	return true
}

// containsFold reports whether sub (lower-case ASCII) occurs in s, ignoring case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if lower(s[i]) == sub[0] && hasPrefixFold(s[i:], sub) {
			return true
		}
	}
	return false
}
