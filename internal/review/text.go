package review

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextOptions shape the plain output.
type TextOptions struct {
	Colour bool // ANSI colours (the command sets it for a terminal only)
	// Width fits every line to this many columns (a terminal's):
	// the verdict and notes wrap, summaries and rows are cut with "…",
	// toolUseIds are shortened (ShortID). 0 = nothing is cut (a pipe:
	// grep gets whole lines and whole ids).
	Width int
	Only  string // the --only filter, named in the header
}

const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	blue   = "\x1b[34m"
	purple = "\x1b[35m"
	cyan   = "\x1b[36m"
)

var kindColour = map[string]string{"exec": cyan, "edit": yellow, "write": yellow, "read": blue, "tool_call": purple, "claim": green, "gate": yellow}

type printer struct {
	w   io.Writer
	opt TextOptions
	err error
}

func (p *printer) c(code, s string) string {
	if !p.opt.Colour || code == "" {
		return s
	}
	return code + s + reset
}

func (p *printer) line(format string, a ...any) {
	if p.err == nil {
		s := fmt.Sprintf(format, a...)
		if p.opt.Width > 0 {
			s = fit(s, p.opt.Width)
		}
		_, p.err = io.WriteString(p.w, s+"\n")
	}
}

// put is line("%s", s), without formatting: a row is made by
// concatenation (a call's row is most of a long review's text).
// putAll is put of the parts joined, without joining them when there is
// no width to fit them to.
func (p *printer) putAll(parts ...string) {
	if p.opt.Width > 0 {
		p.put(strings.Join(parts, ""))
		return
	}
	for _, s := range parts {
		if p.err == nil {
			_, p.err = io.WriteString(p.w, s)
		}
	}
	if p.err == nil {
		_, p.err = io.WriteString(p.w, "\n")
	}
}

func (p *printer) put(s string) {
	if p.err == nil {
		if p.opt.Width > 0 {
			s = fit(s, p.opt.Width)
		}
		if _, p.err = io.WriteString(p.w, s); p.err == nil {
			_, p.err = io.WriteString(p.w, "\n")
		}
	}
}

// padLeft and padRight are fmt's %Ns and %-Ns: s padded with spaces to
// n runes.
func padLeft(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return strings.Repeat(" ", n-k) + s
	}
	return s
}

func padRight(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// wrap prints text (one colour) in lines of the width, breaking at
// spaces; continuation lines are indented by two spaces.
func (p *printer) wrap(code, text string) {
	if p.opt.Width <= 0 {
		p.line("%s", p.c(code, text))
		return
	}
	width := p.opt.Width
	if width < 20 {
		width = 20
	}
	lead := ""
	for text != "" {
		room := width - len(lead)
		r := []rune(text)
		if len(r) <= room {
			p.line("%s", lead+p.c(code, text))
			return
		}
		cut := room
		for i := room; i > room/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		p.line("%s", lead+p.c(code, string(r[:cut])))
		text = strings.TrimLeft(string(r[cut:]), " ")
		lead = "  "
	}
}

// fit cuts s to n visible columns (ANSI colour codes take none), ending
// it with "…" and a colour reset when it was cut inside a colour.
func fit(s string, n int) string {
	if visibleLen(s) <= n {
		return s
	}
	var b strings.Builder
	cols, esc, coloured := 0, false, false
	for _, r := range s {
		switch {
		case r == 0x1b:
			esc = true
			b.WriteRune(r)
			continue
		case esc:
			b.WriteRune(r)
			if r == 'm' {
				esc = false
				coloured = !strings.HasSuffix(b.String(), reset)
			}
			continue
		}
		if cols == n-1 {
			b.WriteString("…")
			if coloured {
				b.WriteString(reset)
			}
			return b.String()
		}
		b.WriteRune(r)
		cols++
	}
	return b.String()
}

// ShortID is the toolUseId a terminal row shows: its last 8 characters
// after "…" when it is longer than 12 (Claude Code's ids share their
// "toolu_01" start; the end tells them apart). --json and a pipe have it
// whole.
func ShortID(id string) string {
	r := []rune(id)
	if len(r) <= 12 {
		return id
	}
	return "…" + string(r[len(r)-8:])
}

func (p *printer) id(id string) string {
	if p.opt.Width > 0 {
		return ShortID(id)
	}
	return id
}

// MaxFailedListed bounds the failed calls listed in the summary; the rest
// are counted (--only failed shows them all).
const MaxFailedListed = 10

// WriteText prints the review: the verdict, the summary, then each turn.
func WriteText(w io.Writer, r *Review, opt TextOptions) error {
	p := &printer{w: w, opt: opt}
	v := r.Verdict
	col := green
	if !v.OK {
		col = red
	}
	p.wrap(bold+col, Clean(v.Line))
	for _, n := range r.Notes {
		p.wrap(yellow, "note: "+Clean(n))
	}
	s := r.Summary
	p.line("session   %s  %s", Clean(r.Session.ID), p.c(dim, Clean(r.Session.Agent)))
	if r.Session.Goal != "" {
		p.line("goal      %s", Clean(r.Session.Goal))
	}
	if s.Start != "" {
		p.line("time      %s → %s  (%s; tools %s)", s.Start, s.End, Millis(s.TotalMs), Millis(s.ToolMs))
	}
	for _, a := range s.Attested {
		p.line("actor     %s  %s", Clean(a), p.c(dim, "attested"))
	}
	for _, a := range s.Asserted {
		p.line("claimed   %s  %s", Clean(a), p.c(dim, "asserted: the client said so, nothing checked it"))
	}
	p.line("steps     %d   turns %d   sub-agents %d", s.Steps, s.Turns, s.SubAgents)
	p.line("calls     %d%s", s.Calls, byKind(s.ByKind))
	if len(s.Files) > 0 {
		head := fmt.Sprintf("files     %d: ", len(s.Files))
		var b strings.Builder
		for i, f := range s.Files {
			part := Clean(f.Path) + " (" + kindsOf(f.ByKind) + ")"
			if i > 0 {
				part = ", " + part
			}
			more := fmt.Sprintf(", … %d more", len(s.Files)-i)
			if p.opt.Width > 0 && len(head)+utf8.RuneCountInString(b.String()+part)+len(more) > p.opt.Width && i > 0 {
				b.WriteString(more)
				break
			}
			b.WriteString(part)
		}
		p.line("%s%s", head, b.String())
	}
	if len(s.Failed) > 0 {
		p.line("failed    %s", p.c(red, fmt.Sprintf("%d", len(s.Failed))))
		for i, c := range s.Failed {
			if i == MaxFailedListed {
				p.line("          %s", p.c(dim, fmt.Sprintf("… and %d more failed calls (--only failed shows them all)", len(s.Failed)-i)))
				break
			}
			id := p.id(Clean(c.ToolUseID))
			room := 60
			if p.opt.Width > 0 {
				room = max(20, p.opt.Width-10-len(exitText(c))-1-utf8.RuneCountInString(id)-2)
			}
			p.line("          %s %s  %s", p.c(red, exitText(c)), p.cut(Clean(c.Subject), room), p.c(dim, id))
		}
	}
	if g := s.Gaps; g.Total() > 0 {
		p.line("gaps      %s", p.c(yellow, fmt.Sprintf("%d unfinished, %d duplicated pre, %d duplicated post, %d orphaned, session start missing: %v",
			g.UnfinishedToolCalls, g.DuplicatePreEvents, g.DuplicatePostEvents, g.PostWithoutPre, g.MissingSessionStart == 1)))
	} else {
		p.line("gaps      none")
	}
	if n := s.Gaps.DeniedToolCalls; n > 0 {
		p.line("denied    %s", p.c(red, fmt.Sprintf("%d call(s) denied by the organization policy: not run, no gap", n)))
	}
	if opt.Only != "" {
		p.line("showing   only %s", opt.Only)
	}
	if r.Summary.Gaps.MissingSessionStart == 1 && opt.Only != "exec" && opt.Only != "edit" && opt.Only != "failed" {
		p.line("")
		p.line("%s", p.c(yellow, "! "+GapMissingStart+": no SessionStart event was recorded (lost, or the hooks were installed mid-session)"))
	}
	for _, t := range r.Turns {
		p.line("")
		if t.Prompt == nil {
			p.line("%s", p.c(bold, "── before the first prompt"))
		} else {
			p.line("%s", p.c(bold, fmt.Sprintf("── turn %d  %s  %s", t.Number, clock(t.Prompt.At), Clean(t.Prompt.Summary))))
		}
		p.items(t.Items, "   ")
	}
	return p.err
}

func (p *printer) items(items []Item, indent string) {
	for _, it := range items {
		switch {
		case it.Call != nil:
			p.call(it.Call, indent)
		case it.SubAgent != nil:
			a := it.SubAgent
			state := ""
			if a.End == "" {
				state = p.c(yellow, "  (no SubagentStop)")
			}
			p.line("%s%s", indent, p.c(purple, fmt.Sprintf("┌ sub-agent %s %s  %s  %d call(s)%s", Clean(a.ID), Clean(a.Type), clock(a.Start), a.Calls, state)))
			p.items(a.Items, indent+"│ ")
		case it.Event != nil:
			e := it.Event
			p.put(indent + clock(e.At) + "  " + p.c(dim, Clean(e.Summary)))
		}
	}
}

func (p *printer) call(c *Call, indent string) {
	dur := "    —   "
	if d := c.Duration(); d != nil {
		dur = padLeft(Millis(*d), 8)
	}
	exit := "      "
	if c.bits&hasExit != 0 || c.Failed {
		exit = fmt.Sprintf("%-6s", exitText(c))
	}
	if c.Failed {
		exit = p.c(red, exit)
	}
	kind := padRight(c.Kind, 9)
	subject := Clean(c.Subject)
	tool := ""
	if subject == "" {
		subject = Clean(c.Tool)
	} else if c.Tool != "" && c.Kind != "exec" {
		tool = Clean(c.Tool)
	}
	id := p.id(Clean(c.ToolUseID))
	if p.opt.Width <= 0 && utf8.RuneCountInString(tool)+1+utf8.RuneCountInString(subject) <= maxSubject {
		// Nothing to fit or cut (text to a pipe, most rows): the row's
		// parts are written as they are, not joined into a string first
		// (a 100,000-step record has 37,500 rows; issue 21).
		sep := " "
		if tool == "" {
			sep = ""
		}
		p.putAll(indent, clock(c.Start), " ", p.c(kindColour[c.Kind], kind), " ", dur, " ", exit, " ", tool, sep, subject, "  ", p.c(dim, id))
		p.callNotes(c, indent, id)
		return
	}
	if tool != "" {
		subject = tool + " " + subject
	}
	head := indent + clock(c.Start) + " " + p.c(kindColour[c.Kind], kind) + " " + dur + " " + exit + " "
	room := maxSubject
	if p.opt.Width > 0 {
		room = p.opt.Width - visibleLen(head) - utf8.RuneCountInString(id) - 2
		if room < 20 {
			room = 20
		}
	}
	p.put(head + p.cut(subject, room) + "  " + p.c(dim, id))
	p.callNotes(c, indent, id)
}

// callNotes are the lines under a call's row: its gaps, its note, its
// gate.
func (p *printer) callNotes(c *Call, indent, id string) {
	if c.hasGaps() {
		for _, g := range c.Gaps() {
			p.line("%s%s", indent, p.c(yellow, "  ! "+g+": "+id))
		}
	}
	if note := c.Note(); note == NoteDeniedRan {
		p.line("%s%s", indent, p.c(red, "  ! "+note+": "+id))
	} else if note != "" {
		p.line("%s%s", indent, p.c(dim, "  · "+note))
	}
	if g := c.Gate(); g != nil {
		p.line("%s%s", indent, p.gateLine(g))
	}
}

// gateLine is a call's policy decision: denials and asks in colour, with
// the rule and the reason the agent was given.
func (p *printer) gateLine(g *Gate) string {
	text := "  policy " + Clean(g.Decision)
	if g.Rule != "" {
		text += " (" + Clean(g.Rule) + ")"
	}
	if !g.Enforced {
		text += " [audit: not enforced]"
	}
	if g.Reason != "" && g.Decision != "allow" {
		text += ": " + Clean(g.Reason)
	}
	if g.Approver != "" && g.Decision == "allow" {
		text += ": approved by " + Clean(g.Approver)
	}
	if g.Error != "" {
		text += " [" + Clean(g.Error) + "]"
	}
	switch g.Decision {
	case "deny":
		return p.c(red, text)
	case "ask":
		return p.c(yellow, text)
	}
	return p.c(dim, text)
}

// maxSubject bounds a row's command or path when the width is unknown
// (--json has them whole).
const maxSubject = 160

func (p *printer) cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func visibleLen(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case r == 0x1b:
			esc = true
		case esc && r == 'm':
			esc = false
		case !esc:
			n++
		}
	}
	return n
}

func exitText(c *Call) string {
	if c.bits&hasExit != 0 {
		return fmt.Sprintf("exit %d", c.exitCode)
	}
	if c.Failed {
		return "failed"
	}
	return ""
}

func byKind(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	return ": " + kindsOf(m)
}

func kindsOf(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if m[keys[a]] != m[keys[b]] {
			return m[keys[a]] > m[keys[b]]
		}
		return keys[a] < keys[b]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// clock is the time of day of an RFC 3339 instant, to the millisecond.
func clock(at string) string {
	if len(at) < 20 {
		return at
	}
	t := strings.TrimSuffix(at[11:], "Z")
	if i := strings.IndexByte(t, '.'); i >= 0 && len(t) > i+4 {
		t = t[:i+4]
	}
	return t
}

// Millis writes a duration for people: 850 ms, 3.2 s, 4 min 10 s, 2 h 5 min.
func Millis(ms int64) string {
	switch {
	case ms < 0:
		return "-" + Millis(-ms)
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	case ms < 3_600_000:
		return fmt.Sprintf("%d min %d s", ms/60_000, ms%60_000/1000)
	}
	return fmt.Sprintf("%d h %d min", ms/3_600_000, ms%3_600_000/60_000)
}

// Clean shows characters that would hide, move or colour text on a
// terminal (controls, escapes, bidi overrides, zero-width marks) as
// ⟦U+XXXX⟧, as the page does: a summary cannot pass for something else.
func Clean(s string) string {
	if printableASCII(s) || strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\n' {
			b.WriteString("⏎")
		} else if r == '\t' {
			b.WriteString("⇥")
		} else if hidden(r) {
			fmt.Fprintf(&b, "⟦U+%04X⟧", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printableASCII reports whether s is all printable ASCII (nothing
// hidden: the fast way to most of Clean's answers).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func hidden(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return false
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
		return true
	}
	return false
}
