package wraprun

import "strings"

// CommandLine joins argv into one line a POSIX shell would split back into
// the same arguments: an argument made only of safe characters stays as it
// is, any other is single-quoted. In NAME=VALUE and --name=VALUE arguments
// only VALUE is quoted (--password='a b', not '--password=a b'), which is
// the form the redactor reads as a secret's name and value. The result is
// not yet redacted.
func CommandLine(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if name, value, ok := strings.Cut(a, "="); ok && isName(name) && !safe(value) {
			b.WriteString(name)
			b.WriteByte('=')
			quote(&b, value)
			continue
		}
		if a != "" && safe(a) {
			b.WriteString(a)
			continue
		}
		quote(&b, a)
	}
	return b.String()
}

// safe reports whether s needs no quoting: letters, digits and _@%+=:,./-
// (the set Python's shlex.quote leaves alone).
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("_@%+=:,./-", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// quote writes s in single quotes; a single quote inside closes the
// quoting, is written escaped with a backslash, and reopens it.
func quote(b *strings.Builder, s string) {
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, "'", `'\''`))
	b.WriteByte('\'')
}

// isName reports a variable or flag name (NAME, --name, -Dkey.sub): only
// then is an argument NAME=VALUE with VALUE quoted alone. A value such as
// a base64 key holding '=' is quoted whole, not cut at its own '='.
func isName(s string) bool {
	s = strings.TrimLeft(s, "-")
	if s == "" || !(s[0] == '_' || 'a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z') {
			return false
		}
	}
	return true
}
