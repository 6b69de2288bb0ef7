package install

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/userdirs"
)

// goos is the system the hooks run on.
func (o Options) goos() string {
	if o.GOOS != "" {
		return o.GOOS
	}
	return runtime.GOOS
}

// home is the user's home directory on o's system (userdirs.Home).
func (o Options) home(getenv func(string) string) string { return userdirs.Home(o.goos(), getenv) }

// userFile is the harness's user-level hook file: under home, except
// Codex's, under $CODEX_HOME when it is set (Codex's own rule).
func (o Options) userFile(spec *hookconf.Spec, home string, getenv func(string) string) string {
	if spec.Harness == "codex" && getenv("CODEX_HOME") != "" {
		return filepath.Join(getenv("CODEX_HOME"), filepath.Base(spec.UserFile))
	}
	return filepath.Join(home, spec.UserFile)
}

// binExpr is the binaries' directory abs as the harness's shell reads it
// (hookconf.Target.Bin). Git Bash on Windows takes C:/x/y, not C:\x\y
// (a backslash is its escape); PowerShell's double quotes expand $ and
// the backquote, which are escaped.
func binExpr(shell, goos, abs string) string {
	switch shell {
	case hookconf.ShellCmd:
		return abs
	case hookconf.ShellPowerShell:
		return strings.NewReplacer("`", "``", "$", "`$").Replace(abs)
	}
	if goos == "windows" {
		abs = strings.ReplaceAll(abs, `\`, "/")
	}
	return shellQuote(abs)
}

// quoteArg quotes s as one argument of a hook command for shell.
func quoteArg(shell, s string) string {
	if shell == hookconf.ShellPOSIX {
		return shellQuote(s)
	}
	return hookconf.QuoteArg(shell, s)
}

// exeNames are names as the binaries' files are called on goos.
func exeNames(goos string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = hookconf.Exe(goos, n)
	}
	return out
}
