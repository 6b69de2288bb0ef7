package shellcmd

import (
	"slices"
	"strings"
)

// A wrapper is a program that runs another: its options are skipped as
// its own manual page reads them (withArg: the short options that take
// the next word; long: the long ones that do, unless given as --x=v),
// and what follows is read as the command it runs.
type wrapper struct {
	withArg string
	long    []string
	// skip: operands before the command (timeout's DURATION).
	skip int
	// assigns: NAME=VALUE words may come before the command (env, sudo).
	assigns bool
}

var wrappers = map[string]wrapper{
	"sudo":    {withArg: "ugpCDrtTURac", long: []string{"user", "group", "prompt", "close-from", "chdir", "role", "type", "command-timeout", "other-user", "chroot", "host"}, assigns: true},
	"doas":    {withArg: "uCa"},
	"env":     {withArg: "uCSPa", long: []string{"unset", "chdir", "split-string", "argv0"}, assigns: true},
	"xargs":   {withArg: "adEILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}},
	"command": {},
	"builtin": {},
	"exec":    {withArg: "a"},
	"nice":    {withArg: "n", long: []string{"adjustment"}},
	"nohup":   {},
	"time":    {withArg: "fo", long: []string{"format", "output"}},
	"timeout": {withArg: "sk", long: []string{"signal", "kill-after"}, skip: 1},
	"stdbuf":  {withArg: "ioe", long: []string{"input", "output", "error"}},
	"ionice":  {withArg: "cnp", long: []string{"class", "classdata", "pid"}},
	"setsid":  {},
	"busybox": {},
	// zsh's precommand modifiers (`noglob rm`, `- rm`: zsh runs rm), and
	// `--` after bash's time keyword (`time -- rm` runs rm), which the
	// parser leaves as the program.
	"noglob":    {},
	"nocorrect": {},
	"-":         {},
	"--":        {},
}

// shells run their -c string, or a here-document on their stdin.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "yash": true, "posh": true, "fish": true}

// inner reads the command a program runs, if it runs one.
func (r *reader) inner(prog string, args []word, stdin *string) error {
	switch {
	case shells[prog]:
		return r.shell(prog, args, stdin)
	case prog == "eval":
		return r.script(join(args), "")
	case prog == "trap" && len(args) > 1 && !strings.HasPrefix(args[0].s, "-"):
		// trap 'rm -rf x' EXIT: the string runs when the signal comes
		return r.script(args[0].s, "")
	case prog == "find":
		return r.find(args)
	}
	w, ok := wrappers[prog]
	if !ok {
		return nil
	}
	i := 0
	for i < len(args) {
		a := args[i].s
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		i++
		if long, ok := strings.CutPrefix(a, "--"); ok {
			name, v, eq := strings.Cut(long, "=")
			takes := slices.Contains(w.long, name)
			if prog == "env" && name == "split-string" {
				if !eq && i < len(args) {
					v, i = args[i].s, i+1
				}
				if err := r.script(v, ""); err != nil {
					return err
				}
				continue
			}
			if takes && !eq {
				i++
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(w.withArg, a[j]) < 0 {
				continue
			}
			v := a[j+1:]
			if v == "" && i < len(args) {
				v, i = args[i].s, i+1
			}
			if prog == "env" && a[j] == 'S' {
				// env -S 'rm -rf x' splits its string into the command
				if err := r.script(v, ""); err != nil {
					return err
				}
			}
			break
		}
	}
	if w.assigns {
		for i < len(args) && isAssign(args[i].s) {
			i++
		}
	}
	i += w.skip
	if i >= len(args) {
		return nil
	}
	return r.call(args[i:], nil, nil)
}

// shell reads what a shell runs: the string after -c (options may be
// clustered, -lc, -ec, and come in any order before it), else, when no
// script file is named, a here-document on its stdin.
func (r *reader) shell(prog string, args []word, stdin *string) error {
	cmd := false
	i := 0
	for i < len(args) {
		a := args[i].s
		if a == "-" || a == "--" {
			i++
			break
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		i++
		if strings.HasPrefix(a, "--") {
			if a == "--rcfile" || a == "--init-file" {
				i++
			}
			if a == "--command" { // fish
				cmd = true
			}
			if v, ok := strings.CutPrefix(a, "--command="); ok { // fish
				return r.script(v, prog)
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'c':
				cmd = true
			case 'o', 'O':
				if j == len(a)-1 {
					i++ // -o pipefail
				}
			}
		}
	}
	switch {
	case cmd && i < len(args):
		return r.script(args[i].s, prog)
	case !cmd && i >= len(args) && stdin != nil:
		return r.script(*stdin, prog)
	}
	return nil
}

// find -exec CMD … ; (and -execdir, -ok, -okdir) runs CMD for each file.
func (r *reader) find(args []word) error {
	for i := 0; i < len(args); i++ {
		switch args[i].s {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && args[j].s != ";" && args[j].s != "+" {
			j++
		}
		if j > i+1 {
			if err := r.call(args[i+1:j], nil, nil); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

func join(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.s
	}
	return strings.Join(s, " ")
}

// isAssign: NAME=VALUE, as env and sudo take before the command.
func isAssign(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
