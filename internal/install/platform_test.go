package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/hookconf"
)

// TestInstallPerGOOS: a project install written for each system copies
// the binaries under that system's names and writes hook commands its
// harness's shell runs: POSIX with .exe and forward slashes for Claude
// Code on Windows (Git Bash), cmd.exe's for Codex, PowerShell's for
// Gemini CLI; a harness whose Windows shell is not known is refused by
// name, nothing written.
func TestInstallPerGOOS(t *testing.T) {
	now := time.Date(2026, 5, 14, 9, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		goos, harness, file string
		want                []string // substrings of the written file
		bins                []string
	}{
		{"darwin", "claude-code", ".claude/settings.json",
			[]string{`test -x \"$CLAUDE_PROJECT_DIR\"/.logbook/bin/record-step || {`}, []string{"record-step", "logbook-seal"}},
		{"windows", "claude-code", ".claude/settings.json",
			[]string{`test -x \"$CLAUDE_PROJECT_DIR\"/.logbook/bin/record-step.exe || {`, `/.logbook/bin/logbook-seal.exe --hook --harness claude-code`}, []string{"record-step.exe", "logbook-seal.exe"}},
		{"windows", "codex", ".codex/hooks.json",
			[]string{`"command": ".logbook\\bin\\record-step.exe --harness codex --dir .logbook"`}, []string{"record-step.exe", "logbook-seal.exe"}},
		{"windows", "gemini", ".gemini/settings.json",
			[]string{`"& \"$env:GEMINI_PROJECT_DIR\\.logbook\\bin\\record-step.exe\" --harness gemini --dir \"$env:GEMINI_PROJECT_DIR\\.logbook\""`}, []string{"record-step.exe"}},
	} {
		t.Run(c.goos+"/"+c.harness, func(t *testing.T) {
			proj, bin := t.TempDir(), t.TempDir()
			for _, n := range []string{"record-step", "logbook-seal"} {
				os.WriteFile(filepath.Join(bin, hookconf.Exe(c.goos, n)), []byte("# "+n), 0o755)
			}
			var out, errb bytes.Buffer
			o := Options{Verb: "install", Harness: c.harness, Project: proj, Bin: bin, NoKey: true, NoGuard: true, GOOS: c.goos}
			if code := Run(o, &out, &errb, func(string) string { return "" }, now); code != Done {
				t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
			}
			b, err := os.ReadFile(filepath.Join(proj, c.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s lacks %s:\n%s", c.file, w, b)
				}
			}
			for _, n := range c.bins {
				if _, err := os.Stat(filepath.Join(proj, ".logbook", "bin", n)); err != nil {
					t.Errorf("not copied: %v", err)
				}
			}
		})
	}
	var out, errb bytes.Buffer
	proj := t.TempDir()
	o := Options{Verb: "install", Harness: "cursor", Project: proj, Bin: fakeBin(t), NoKey: true, GOOS: "windows"}
	if code := Run(o, &out, &errb, func(string) string { return "" }, now); code == Done || !strings.Contains(errb.String(), "which shell runs this harness's hooks on Windows is not known") {
		t.Errorf("cursor on windows: exit %d, %s", code, errb.String())
	}
	if m, _ := filepath.Glob(filepath.Join(proj, "*")); len(m) != 0 {
		t.Errorf("refused install wrote %v", m)
	}
}

func TestBinExpr(t *testing.T) {
	for _, c := range []struct{ shell, goos, abs, want string }{
		{"", "linux", "/opt/logbook bin", `'/opt/logbook bin'`},
		{"", "windows", `C:\Program Files\logbook`, `'C:/Program Files/logbook'`},
		{"cmd", "windows", `C:\Program Files\logbook`, `C:\Program Files\logbook`},
		{"powershell", "windows", "C:\\a$b`c", "C:\\a`$b``c"},
	} {
		if got := binExpr(c.shell, c.goos, c.abs); got != c.want {
			t.Errorf("binExpr(%q, %s, %q) = %q, want %q", c.shell, c.goos, c.abs, got, c.want)
		}
	}
}

// TestUserFilePerGOOS: Codex's user file follows $CODEX_HOME; the home
// directory on Windows is %USERPROFILE% when $HOME is unset.
func TestUserFilePerGOOS(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	codex := Options{GOOS: "linux"}
	spec := hookconf.Lookup("codex")
	if got := codex.userFile(spec, "/home/u", env(map[string]string{"CODEX_HOME": "/x/codex"})); got != filepath.Join("/x/codex", "hooks.json") {
		t.Errorf("CODEX_HOME: %s", got)
	}
	if got := codex.userFile(spec, "/home/u", env(nil)); got != filepath.Join("/home/u", ".codex", "hooks.json") {
		t.Errorf("no CODEX_HOME: %s", got)
	}
	win := Options{GOOS: "windows"}
	if got := win.home(env(map[string]string{"USERPROFILE": `C:\Users\u`})); got != `C:\Users\u` {
		t.Errorf("windows home: %q", got)
	}
	if got := (Options{GOOS: "linux"}).home(env(map[string]string{"USERPROFILE": `C:\Users\u`})); got != "" {
		t.Errorf("linux home from USERPROFILE: %q", got)
	}
}
