package cli

import (
	"flag"
	"strings"
)

// Suggest names the flag a mistyped one most likely meant, for err as
// fs.Parse returns it ("flag provided but not defined: -instal"): the
// defined flag within two edits of it, or the one it is the start of.
// It returns "" when err is another error or no flag is close.
func Suggest(fs *flag.FlagSet, err error) string {
	if err == nil {
		return ""
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	best, bestD := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := distance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) && d > 1 {
			d = 1 // a prefix of a long name: --evid for --evidence
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" || (len(name) < 3 && bestD > 1) {
		return ""
	}
	return "--" + best
}

// SuggestWord is Suggest for a word among words (a subcommand): the
// closest within two edits, or "".
func SuggestWord(word string, words ...string) string {
	best, bestD := "", 3
	for _, w := range words {
		if d := distance(word, w); d < bestD {
			best, bestD = w, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes (flag
// names are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
