package verdict

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/logbook-project/logbook/internal/gaps"
)

// printGapIDs names the calls behind the gaps line, one line per kind of
// gap, so "1 post-event without a pre-event" says which call. A long list
// is cut at 20 ids with a count of the rest (--json has them all).
func printGapIDs(w io.Writer, n *gaps.Named) {
	if n == nil {
		return
	}
	for _, l := range []struct {
		name string
		ids  []string
	}{{"unfinished", n.Unfinished}, {"duplicated pre-event", n.DuplicatePre}, {"duplicated post-event", n.DuplicatePost}, {"post-event without a pre-event", n.PostWithoutPre}} {
		printIDs(w, l.name, l.ids)
	}
}

// printIDs prints one kind's ids, cut at 20; nothing when there are none.
func printIDs(w io.Writer, name string, list []string) {
	if len(list) == 0 {
		return
	}
	ids := make([]string, len(list))
	for i, id := range list {
		ids[i] = Printable(id)
	}
	more := ""
	if len(ids) > 20 {
		more = fmt.Sprintf(" and %d more", len(ids)-20)
		ids = ids[:20]
	}
	fmt.Fprintf(w, "  %s: %s%s\n", name, strings.Join(ids, " "), more)
}

// Printable quotes an id that holds a character that would hide or move
// text on a terminal (Cursor's ids can hold a newline).
func Printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.QuoteToASCII(s)
	}
	return s
}
