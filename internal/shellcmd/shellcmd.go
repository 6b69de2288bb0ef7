// Package shellcmd reads a shell command line the way the shell will run
// it, for the policy gate's rules (docs/policy.md §3, `commands`): each
// simple command's program and arguments after quoting, escapes and brace
// expansion, through pipelines, lists, subshells, command and process
// substitutions, functions and compound commands, and through the
// programs that run another one: `bash -c`, `sh -c`, `zsh -c`, `eval`,
// `env`, `sudo`, `doas`, `xargs`, `command`, `builtin`, `exec`, `nice`,
// `nohup`, `time`, `timeout`, `stdbuf`, `ionice`, `setsid`, `busybox`,
// `find -exec`, and a shell fed a here-document.
//
// A rule on the command's text misses what anyone can type (`\rm -rf x`,
// `/bin/rm -rf x`, `bash -c "rm -rf x"`); a rule on Parse's commands does
// not. The parser is mvdan.cc/sh's (the Go shell parser, behind shfmt),
// not one of ours. What cannot be read is an error, which the gate gives
// the rules as `command_error` so that a policy can fail closed on it.
package shellcmd

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command as it will run.
type Command struct {
	// Program is the base name of Path: `rm` for `/bin/rm`, `\rm`, `'rm'`.
	Program string
	// Path is the program as written, unquoted: `/bin/rm`, `rm`, `./x.sh`.
	Path string
	// Args are the arguments after the program, unquoted; a part known
	// only at run time (`$HOME`, `$(pwd)`) is kept as written.
	Args []string
	// Redirects are the files the command's redirections name (`< .env`,
	// `> out`), unquoted; here-documents are not files and are left out.
	Redirects []string
	// Dynamic: the program is not known before the command runs (a
	// variable, a substitution or a pattern in its word: `$x -rf y`).
	Dynamic bool
}

// Limits of one Parse. A command line is at most MaxLen bytes, shells run
// by shells at most MaxDepth deep, and at most MaxCommands commands are
// read; beyond any of them Parse fails (the rules see command_error).
const (
	MaxLen      = 1 << 20
	MaxDepth    = 16
	MaxCommands = 4096
)

// Error is why a command line could not be read.
type Error struct{ Reason string }

func (e *Error) Error() string { return "the command could not be read as shell: " + e.Reason }

var errTooMany = &Error{Reason: fmt.Sprintf("more than %d commands", MaxCommands)}

// Parse reads a command line as bash reads it (zsh when bash cannot: the
// harness may run either) and returns its commands, outermost first. The
// commands read before an error are returned with it.
func Parse(src string) ([]Command, error) {
	r := &reader{}
	err := r.script(src, "")
	return r.out, err
}

// FromArgv reads a command given as its argument vector (a harness that
// runs a program without a shell, `["bash", "-lc", "…"]`).
func FromArgv(argv []string) ([]Command, error) {
	r := &reader{}
	if len(argv) == 0 {
		return nil, nil
	}
	ws := make([]word, len(argv))
	for i, a := range argv {
		ws[i] = word{s: a}
	}
	err := r.call(ws, nil, nil)
	return r.out, err
}

type reader struct {
	out   []Command
	depth int
	// piped: what a pipeline's earlier command prints (echo, printf),
	// the standard input of the statement after it.
	piped map[*syntax.Stmt]string
	// expanded: the expansions printed took, errors too, each taken
	// once (brace expansion rewrites the word)
	expanded map[*syntax.Word]expansion
}

func (r *reader) expand(w *syntax.Word, src string, keep bool) ([]word, error) {
	if x, ok := r.expanded[w]; ok {
		return x.ws, x.err
	}
	ws, err := expandWord(w, src)
	if keep {
		if r.expanded == nil {
			r.expanded = map[*syntax.Word]expansion{}
		}
		r.expanded[w] = expansion{ws, err}
	}
	return ws, err
}

type expansion struct {
	ws  []word
	err error
}

// printed is what st prints when it is echo or printf of words known
// before it runs (printf's format is taken as it is written).
func (r *reader) printed(st *syntax.Stmt, src string) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 {
		return "", false
	}
	var ws []string
	for _, w := range call.Args {
		x, err := r.expand(w, src, true)
		if err != nil {
			return "", false
		}
		for _, a := range x {
			ws = append(ws, a.s)
		}
		if len(ws) > MaxCommands {
			return "", false // as stmt refuses it
		}
	}
	switch base(ws[0]) {
	case "echo":
		args := ws[1:]
		for len(args) > 0 && len(args[0]) > 1 && strings.Trim(args[0], "-neE") == "" && args[0][0] == '-' {
			args = args[1:]
		}
		return strings.Join(args, " ") + "\n", true
	case "printf":
		return strings.Join(ws[1:], " "), true
	}
	return "", false
}

// word is one argument: its text and whether any of it is known only at
// run time.
type word struct {
	s   string
	dyn bool
}

// script parses src and reads every statement in it. shell names the
// program that runs it ("" at the top: bash, else zsh).
func (r *reader) script(src, shell string) error {
	if len(src) > MaxLen {
		return &Error{Reason: fmt.Sprintf("longer than %d bytes", MaxLen)}
	}
	if r.depth >= MaxDepth {
		return &Error{Reason: fmt.Sprintf("shells nested more than %d deep", MaxDepth)}
	}
	f, err := parse(src, shell)
	if err != nil {
		return &Error{Reason: oneLine(err.Error())}
	}
	r.depth++
	defer func() { r.depth-- }()
	// All statements first: brace expansion rewrites words, which the
	// walk does not expect to meet.
	var stmts []*syntax.Stmt
	var pipes []*syntax.BinaryCmd
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			stmts = append(stmts, n)
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				pipes = append(pipes, n)
			}
		}
		return true
	})
	// echo 'rm -rf x' | sh: the shell runs what echo prints (after the
	// walk: printed expands braces too).
	for _, p := range pipes {
		if out, ok := r.printed(p.X, src); ok {
			if r.piped == nil {
				r.piped = map[*syntax.Stmt]string{}
			}
			r.piped[p.Y] = out
		}
	}
	for _, st := range stmts {
		if err := r.stmt(st, src); err != nil {
			return err
		}
	}
	return nil
}

// parse tries the shell's own language first.
func parse(src, shell string) (*syntax.File, error) {
	langs := []syntax.LangVariant{syntax.LangBash, syntax.LangZsh}
	switch shell {
	case "zsh":
		langs = []syntax.LangVariant{syntax.LangZsh, syntax.LangBash}
	case "ksh", "mksh":
		langs = []syntax.LangVariant{syntax.LangMirBSDKorn, syntax.LangBash}
	}
	var first error
	for _, l := range langs {
		f, err := parseAs(src, l)
		if err == nil {
			return f, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// parseAs parses under one language; the parser's panics (it has had
// some on odd input) are an error, never the caller's crash.
func parseAs(src string, l syntax.LangVariant) (f *syntax.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("the parser failed: %v", p)
		}
	}()
	return syntax.NewParser(syntax.Variant(l)).Parse(strings.NewReader(src), "")
}

// stmt reads one statement: its redirections, and its command when it
// is a simple one (the walk reaches what compound ones hold).
func (r *reader) stmt(st *syntax.Stmt, src string) error {
	var redirs []string
	var stdin *string
	for _, rd := range st.Redirs {
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if rd.Hdoc != nil {
				s := literal(rd.Hdoc, src, true).s
				if quotedDelim(rd.Word) {
					// <<'EOF': the body as written
					s = rawBody(rd.Hdoc, src)
				}
				stdin = &s
			}
		case syntax.WordHdoc:
			s := literal(rd.Word, src, false).s + "\n"
			stdin = &s
		default:
			if rd.Word != nil {
				redirs = append(redirs, literal(rd.Word, src, false).s)
			}
		}
	}
	if out, ok := r.piped[st]; ok && stdin == nil {
		stdin = &out
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		if len(redirs) == 0 {
			return nil
		}
		return r.add(Command{Redirects: redirs, Args: []string{}})
	}
	var argv []word
	for _, w := range call.Args {
		ws, err := r.expand(w, src, false)
		if err != nil {
			return err
		}
		argv = append(argv, ws...)
		if len(argv) > MaxCommands {
			return errTooMany
		}
	}
	if len(argv) == 0 {
		return nil
	}
	return r.call(argv, redirs, stdin)
}

// quotedDelim: a here-document's delimiter with any quoting, whose body
// the shell does not expand.
func quotedDelim(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return true
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return !ok || strings.Contains(l.Value, "\\")
}

// rawBody is an unexpanded here-document's text.
func rawBody(w *syntax.Word, src string) string {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			return l.Value
		}
	}
	return source(w, src)
}

func (r *reader) add(c Command) error {
	if len(r.out) >= MaxCommands {
		return errTooMany
	}
	if c.Redirects == nil {
		c.Redirects = []string{}
	}
	r.out = append(r.out, c)
	return nil
}

// call records one simple command and reads the command it runs, if it
// runs one (wrappers.go).
func (r *reader) call(argv []word, redirs []string, stdin *string) error {
	args := make([]string, len(argv)-1)
	for i, a := range argv[1:] {
		args[i] = a.s
	}
	prog := argv[0].s
	if len(prog) > 1 && prog[0] == '=' {
		// zsh runs =rm as the rm its PATH finds (EQUALS); bash finds no
		// such program, so naming it rm misleads no rule.
		prog = prog[1:]
	}
	c := Command{Path: argv[0].s, Program: base(prog), Args: args, Redirects: redirs, Dynamic: argv[0].dyn}
	if err := r.add(c); err != nil {
		return err
	}
	return r.inner(c.Program, argv[1:], stdin)
}

// base is the program's name as the shell looks it up: the last element
// of its path.
func base(p string) string {
	if p == "" || !strings.Contains(p, "/") {
		return p
	}
	b := path.Base(p)
	if b == "/" || b == "." {
		return p
	}
	return b
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
