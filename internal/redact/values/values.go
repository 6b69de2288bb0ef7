// Package values reads the value after a secret's name, as a shell, a
// config file or program text writes it (quoted, $'...', escaped blanks),
// and decides whether it holds a secret rather than a reference to one
// ($TOKEN, {{ .Token }}), a placeholder or a path.
package values

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/names"
)

// Mask replaces every secret. A value holding one from an earlier pass
// reads it as one unit.
const Mask = "[REDACTED]"

// At parses the value that starts at i and returns the bounds of its
// content (inside the quotes when quoted) and the quote byte, 0 if none.
// An unclosed quote runs to the end of the line. $'...' and $"..." count
// as quoted with ' and "; an unquoted value keeps its shell-escaped
// blanks (a\ b).
func At(s string, i int) (start, end int, quote byte) {
	if i >= len(s) {
		return i, i, 0
	}
	c := s[i]
	switch {
	case c == '$' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"'):
		// Bash ANSI-C ($'...') and locale ($"...") quoting: the value is
		// what is inside, and a backslash escapes the quote in both.
		q := s[i+1]
		j := i + 2
		for j < len(s) && s[j] != q && s[j] != '\n' {
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			j++
		}
		return i + 2, min(j, len(s)), q
	case c == '"' || c == '\'':
		j := i + 1
		for j < len(s) && s[j] != c && s[j] != '\n' {
			if c == '"' && s[j] == '\\' && j+1 < len(s) { // \" does not close "..."
				j++
			}
			j++
		}
		return i + 1, min(j, len(s)), c
	case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\''):
		q := s[i+1]
		j := i + 2
		for j < len(s) && !(s[j] == '\\' && j+1 < len(s) && s[j+1] == q) && s[j] != '\n' {
			j++
		}
		return i + 2, j, q
	}
	j := i
	for j < len(s) {
		if s[j] == '[' && strings.HasPrefix(s[j:], Mask) {
			j += len(Mask) // an earlier replacement is one unit, not "[REDACTED" + "]"
			continue
		}
		if s[j] == '\\' && j+1 < len(s) && ascii.IsBlank(s[j+1]) {
			j += 2 // a shell-escaped blank: pass\ word is one argument
			continue
		}
		if ascii.IsTerminator(s[j]) {
			break
		}
		j++
	}
	return i, j, 0
}

// Worth reports whether v, the value of a name of class cls, is
// a secret rather than a reference to one or a placeholder.
func Worth(v string, cls names.Class, quote byte) bool {
	if v == "" || v == Mask || isPlaceholder(v) || isPathLike(v) {
		return false
	}
	// $TOKEN, ${TOKEN}, $(cat f) name a secret without holding it; inside
	// single quotes the shell does not expand, so there it is literal.
	if quote != '\'' && IsShellRef(v) {
		return false
	}
	if cls == names.WeakSecret {
		return Opaque(v)
	}
	return true
}

// IsShellRef reports a value that names a secret without holding it:
// $TOKEN, ${TOKEN}, $(cmd), %TOKEN%, {{ .Token }}.
func IsShellRef(v string) bool {
	if len(v) >= 2 && v[0] == '$' && (v[1] == '{' || v[1] == '(' || v[1] == '_' || ascii.IsLetter(v[1]) || ascii.IsDigit(v[1])) {
		return true
	}
	if len(v) >= 3 && v[0] == '%' && v[len(v)-1] == '%' { // %TOKEN% (cmd.exe)
		return true
	}
	return strings.HasPrefix(v, "{{") // templates: {{ .Token }}
}

// placeholders are values that say "no secret here".
var placeholders = [...]string{"true", "false", "yes", "no", "on", "off", "null", "nil", "none", "undefined"}

func isPlaceholder(v string) bool {
	if ascii.InFold(v, placeholders[:]) {
		return true
	}
	if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' { // <your-token>
		return true
	}
	for i := 0; i < len(v); i++ { // ***, xxxx, ...
		if v[i] != v[0] || (v[0] != '*' && v[0] != 'x' && v[0] != 'X' && v[0] != '.') {
			return false
		}
	}
	return true
}

// isPathLike spots file names given where a secret could be:
// GOOGLE_APPLICATION_CREDENTIALS=/path/sa.json, PWD=/home/me.
func isPathLike(v string) bool {
	return v[0] == '/' || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")
}

// Opaque reports whether v looks like a generated credential: long enough,
// letters and digits, no spaces, and not a lower-case slug or file name
// (db-creds-2, client2.pem).
func Opaque(v string) bool {
	if len(v) < 8 || isPathLike(v) {
		return false
	}
	var letter, digit, upper, sep bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case ascii.IsSpace(c):
			return false
		case ascii.IsUpper(c):
			upper, letter = true, true
		case ascii.IsLower(c):
			letter = true
		case ascii.IsDigit(c):
			digit = true
		case c == '-' || c == '.' || c == '_':
			sep = true
		}
	}
	return letter && digit && (upper || !sep)
}

// BlankAt returns the width of the blank at s[i]: 1 for a space or a tab,
// 2 for a shell-escaped one ("\ "), 0 for anything else.
func BlankAt(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case ascii.IsBlank(s[i]):
		return 1
	case s[i] == '\\' && i+1 < len(s) && ascii.IsBlank(s[i+1]):
		return 2
	}
	return 0
}

// SkipBlanks returns the index of the first byte at or after i that is
// not a blank or a shell-escaped blank.
func SkipBlanks(s string, i int) int {
	for n := BlankAt(s, i); n > 0; n = BlankAt(s, i) {
		i += n
	}
	return i
}
