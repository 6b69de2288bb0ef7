package shellcmd

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// show is a Command list in one line: program(path) args [< redirects] !dyn.
func show(cs []Command) string {
	var out []string
	for _, c := range cs {
		s := c.Program
		if c.Path != c.Program {
			s += "(" + c.Path + ")"
		}
		for _, a := range c.Args {
			s += " " + a
		}
		if len(c.Redirects) > 0 {
			s += " <" + strings.Join(c.Redirects, ",")
		}
		if c.Dynamic {
			s += " !dyn"
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`rm -rf x`, `rm -rf x`},
		{`/bin/rm -rf x`, `rm(/bin/rm) -rf x`},
		{`\rm -rf x`, `rm -rf x`},
		{`'r'"m" -r'f' x\ y`, `rm -rf x y`},
		{`$'\x72m' -rf x`, `rm -rf x`},
		{`bash -c "rm -rf x"`, `bash -c rm -rf x | rm -rf x`},
		{`sh -ec 'cd / && rm -rf x'`, `sh -ec cd / && rm -rf x | cd / | rm -rf x`},
		{`bash -o pipefail -c 'rm x'`, `bash -o pipefail -c rm x | rm x`},
		{`zsh -c "rm -rf x"`, `zsh -c rm -rf x | rm -rf x`},
		{`bash script.sh -c x`, `bash script.sh -c x`},
		{`env -i FOO=1 BAR=2 rm -rf x`, `env -i FOO=1 BAR=2 rm -rf x | rm -rf x`},
		{`env -S 'rm -rf x'`, `env -S rm -rf x | rm -rf x`},
		{`sudo -u root -E LANG=C rm -rf /`, `sudo -u root -E LANG=C rm -rf / | rm -rf /`},
		{`xargs -0 -n 1 -I{} rm -rf {}`, `xargs -0 -n 1 -I{} rm -rf {} | rm -rf {}`},
		{`command -p rm x`, `command -p rm x | rm x`},
		{`exec -a name rm x`, `exec -a name rm x | rm x`},
		{`nice -n 5 nohup rm x`, `nice -n 5 nohup rm x | nohup rm x | rm x`},
		{`time rm x`, `rm x`},                             // bash's keyword
		{`time -- rm x`, `-- rm x | rm x`},                // bash runs rm
		{`noglob rm -rf x`, `noglob rm -rf x | rm -rf x`}, // zsh's precommand modifiers
		{`nocorrect - rm x`, `nocorrect - rm x | - rm x | rm x`},
		{`=rm -rf x`, `rm(=rm) -rf x`}, // zsh's EQUALS: the rm of PATH
		{`trap 'rm -rf x' EXIT`, `trap rm -rf x EXIT | rm -rf x`},
		{`trap -p EXIT`, `trap -p EXIT`},
		{`fish --command='rm -rf x'`, `fish --command=rm -rf x | rm -rf x`},
		{`sudo -c default rm x`, `sudo -c default rm x | rm x`}, // BSD's login class
		{`doas -a style rm x`, `doas -a style rm x | rm x`},
		{`env -P /bin rm x`, `env -P /bin rm x | rm x`},           // BSD's altpath
		{`echo 'rm -rf x' | sh`, `echo rm -rf x | sh | rm -rf x`}, // the shell runs what echo prints
		{`echo -n rm -rf x | bash -s`, `echo -n rm -rf x | bash -s | rm -rf x`},
		{`printf 'rm -rf x' |& zsh`, `printf rm -rf x | zsh | rm -rf x`},
		{`echo rm -rf x | sh script.sh`, `echo rm -rf x | sh script.sh`},
		{`echo rm -rf x | cat`, `echo rm -rf x | cat`},
		{`echo {rm,-rf,x} | sh`, `echo rm -rf x | sh | rm -rf x`},
		{`echo a{b,c} | cat`, `echo ab ac | cat`},
		{`timeout -s KILL 5 rm x`, `timeout -s KILL 5 rm x | rm x`},
		{`busybox rm -rf x`, `busybox rm -rf x | rm -rf x`},
		{`find . -exec rm -rf {} + -o -execdir cat {} \;`, `find . -exec rm -rf {} + -o -execdir cat {} ; | rm -rf {} | cat {}`},
		{`eval 'rm -rf' x`, `eval rm -rf x | rm -rf x`},
		{`a && b || c; d | e & f`, `a | b | c | d | e | f`},
		{`(cd x; rm y)`, `cd x | rm y`},
		{`echo $(rm x) "$(cat .env)" <(ls) ` + "`pwd`", `echo $(rm x) $(cat .env) <(ls) ` + "`pwd`" + ` | rm x | cat .env | ls | pwd`},
		{`f() { rm -rf "$1"; }; f x`, `rm -rf $1 | f x`},
		{`if true; then rm x; fi; for i in a; do cat $i; done`, `true | rm x | cat $i`},
		{`cat < .env > out 2>&1`, `cat <.env,out,1`},
		{`x=$(< .env)`, ` <.env`},
		{`{rm,-rf,x}`, `rm -rf x`},
		{`echo {a,b}.env`, `echo a.env b.env`},
		{`$x -rf y`, `$x -rf y !dyn`},
		{`"$(which rm)" -rf y`, `$(which rm) -rf y !dyn | which rm`},
		{`/bin/r? -rf y`, `r?(/bin/r?) -rf y !dyn`},
		{`/bin/r[m] -rf y`, `r[m](/bin/r[m]) -rf y !dyn`},
		{`[ -r x -a -f y ]`, `[ -r x -a -f y ]`},
		{`cat $HOME/.env`, `cat $HOME/.env`},
		{"bash <<'EOF'\nrm -rf $x\nEOF", `bash | rm -rf $x`},
		{"bash <<EOF\nrm -rf \\$x\nEOF", `bash | rm -rf $x`},
		{`bash <<< 'rm -rf x'`, `bash | rm -rf x`},
		{"rm \\\n -rf x", `rm -rf x`},
		{`FOO=1 rm x`, `rm x`},
		{`X=1`, ``},
		{``, ``},
	} {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if s := show(got); s != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, s, c.want)
		}
	}
}

func TestFromArgv(t *testing.T) {
	t.Parallel()
	got, err := FromArgv([]string{"/bin/bash", "-lc", "sudo rm -rf x"})
	if err != nil {
		t.Fatal(err)
	}
	if s, want := show(got), `bash(/bin/bash) -lc sudo rm -rf x | sudo rm -rf x | rm -rf x`; s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

// TestParseFails: what cannot be read is an *Error, with what was read
// before it, never a panic or a partial answer said to be whole.
func TestParseFails(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("eval ", MaxDepth+1) + "rm -rf x"
	for _, c := range []struct{ in, reason string }{
		{`echo 'unclosed`, "closing quote"},
		{`ls; bash -c 'echo "x'`, "closing quote"},
		{deep, "nested"},
		{strings.Repeat("x", MaxLen+1), "longer"},
		{strings.Repeat("a;", MaxCommands+1), "commands"},
		{`echo {1..100}{1..100}{1..100}`, "commands"},
	} {
		got, err := Parse(c.in)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%.60q: %v, want an *Error saying %q", c.in, err, c.reason)
		}
		if c.reason == "closing quote" && strings.HasPrefix(c.in, "ls;") && show(got) != "ls | bash -c echo \"x" {
			t.Errorf("%q: read before the error: %s", c.in, show(got))
		}
	}
}

// FuzzParse: any input is read or refused with an *Error, never a panic;
// every command's program is its path's base name, and the limits hold.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`bash -c "rm -rf x"`, `\rm -rf x`, `sudo env A=1 xargs rm`, `{a,b}{c,d}`,
		"bash <<EOF\nrm $x\nEOF", `find . -exec rm {} \;`, `echo $'\x00' "$(ls)" <(x)`, `eval eval eval x`,
		`zsh -c 'print ${(U)x}'`, `f(){ g; }; a | b && c || d`, `env -S`, `sudo -u`, `x'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := Parse(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: error %T %v", s, err, err)
			}
		}
		if len(cs) > MaxCommands {
			t.Fatalf("%q: %d commands", s, len(cs))
		}
		for _, c := range cs {
			p := c.Path
			if len(p) > 1 && p[0] == '=' {
				p = p[1:] // zsh's =rm
			}
			if c.Program != base(p) || c.Args == nil || c.Redirects == nil {
				t.Fatalf("%q: %s", s, fmt.Sprintf("%+v", c))
			}
		}
	})
}
