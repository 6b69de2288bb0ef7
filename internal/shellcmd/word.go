package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// expandWord is one word of a command as the shell passes it on: brace
// expansion first (`{rm,-rf,x}` is three words), then quoting removed.
func expandWord(w *syntax.Word, src string) ([]word, error) {
	if !syntax.SplitBraces(w) {
		return []word{literal(w, src, false)}, nil
	}
	var out []word
	for x, err := range expand.BracesSeq(&expand.Config{}, w) {
		if err != nil {
			return nil, &Error{Reason: err.Error()}
		}
		out = append(out, literal(x, src, false))
		if len(out) > MaxCommands {
			return nil, errTooMany
		}
	}
	return out, nil
}

// literal is a word's text with quotes and escapes removed. A part only
// the running shell knows (a parameter, a substitution, arithmetic) is
// kept as written and makes the word dynamic, as does an unquoted
// pattern character (the shell may replace the word by file names).
// hdoc: the word is a here-document's body, where only \$, \`, \\ and
// \newline are escapes.
func literal(w *syntax.Word, src string, hdoc bool) word {
	var b strings.Builder
	out := word{}
	parts(&b, w.Parts, src, quoteOf(hdoc), &out.dyn)
	out.s = b.String()
	return out
}

type quoting int

const (
	unquoted quoting = iota
	double
	heredoc
)

func quoteOf(hdoc bool) quoting {
	if hdoc {
		return heredoc
	}
	return unquoted
}

func parts(b *strings.Builder, ps []syntax.WordPart, src string, q quoting, dyn *bool) {
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			unescape(b, p.Value, q, dyn)
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			parts(b, p.Parts, src, double, dyn)
		default:
			*dyn = true
			b.WriteString(source(p, src))
		}
	}
}

// unescape writes a literal's text as the shell reads it. An unquoted
// *, ? or [ with a ] after it is a pattern the shell may replace by file
// names (a [ alone is the test command).
func unescape(b *strings.Builder, s string, q quoting, dyn *bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			if q == unquoted && (c == '*' || c == '?' || (c == '[' && strings.IndexByte(s[i+1:], ']') >= 0)) {
				*dyn = true
			}
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			// a line continuation: nothing
		case q == unquoted:
			b.WriteByte(n)
		case n == '$' || n == '`' || n == '\\' || (q == double && n == '"'):
			b.WriteByte(n)
		default:
			b.WriteByte('\\')
			b.WriteByte(n)
		}
		i++
	}
}

// ansiC is a $'…' string's value (bash stops it at a NUL).
func ansiC(s string) string {
	v, _, _ := expand.Format(&expand.Config{}, strings.ReplaceAll(s, "%", "%%"), nil)
	v, _, _ = strings.Cut(v, "\x00")
	return v
}

// source is a node's text as written.
func source(n syntax.Node, src string) string {
	i, j := n.Pos().Offset(), n.End().Offset()
	if !n.Pos().IsValid() || !n.End().IsValid() || i > j || j > uint(len(src)) {
		return "?"
	}
	return src[i:j]
}
