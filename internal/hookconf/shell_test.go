package hookconf

import (
	"errors"
	"testing"
)

func TestHookShell(t *testing.T) {
	for _, c := range []struct {
		goos, harness, want string
		err                 error
	}{
		{"linux", "codex", ShellPOSIX, nil},
		{"darwin", "gemini", ShellPOSIX, nil},
		{"darwin", "cursor", ShellPOSIX, nil},
		{"windows", "claude-code", ShellPOSIX, nil},
		{"windows", "codex", ShellCmd, nil},
		{"windows", "gemini", ShellPowerShell, nil},
		{"windows", "cursor", "", ErrNoWindowsShell},
		{"windows", "claude-code-guard", "", ErrNoWindowsShell},
	} {
		got, err := HookShell(c.goos, c.harness)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("HookShell(%s, %s) = %q, %v; want %q, %v", c.goos, c.harness, got, err, c.want, c.err)
		}
	}
	if Exe("windows", "record-step") != "record-step.exe" || Exe("darwin", "record-step") != "record-step" {
		t.Error("Exe")
	}
}

func TestQuoteArg(t *testing.T) {
	for _, c := range []struct{ shell, in, want string }{
		{ShellCmd, `C:\logbook\p.json`, `C:\logbook\p.json`},
		{ShellCmd, `C:\Program Files\p.json`, `"C:\Program Files\p.json"`},
		{ShellCmd, `C:\a&b`, `"C:\a&b"`},
		{ShellCmd, "", `""`},
		{ShellPowerShell, `C:\it's\p.json`, `'C:\it''s\p.json'`},
	} {
		if got := QuoteArg(c.shell, c.in); got != c.want {
			t.Errorf("QuoteArg(%s, %q) = %q, want %q", c.shell, c.in, got, c.want)
		}
	}
}

// TestPlainCommands: cmd.exe and PowerShell hooks call the program with
// the same arguments a POSIX hook does (seal, event name, policy, server
// with its key and --fail-closed on gated events, --dir).
func TestPlainCommands(t *testing.T) {
	codex := Lookup("codex")
	cmd := ProjectTargetOn(codex, ShellCmd, ".exe")
	if got, want := cmd.Command(Event{Name: "PreToolUse"}), `.logbook\bin\record-step.exe --harness codex --dir .logbook`; got != want {
		t.Errorf("cmd: %s\nwant %s", got, want)
	}
	cmd.Policy = ` --policy "C:\a b\p.json"`
	if got, want := cmd.Command(Event{Name: "PreToolUse"}), `.logbook\bin\record-step.exe --harness codex --policy "C:\a b\p.json" --dir .logbook`; got != want {
		t.Errorf("cmd policy: %s\nwant %s", got, want)
	}
	user := Target{Spec: codex, Bin: `C:\Program Files\logbook`, Shell: ShellCmd, Exe: ".exe"}
	if got, want := user.Command(Event{Name: "Stop", Seal: true}), `"C:\Program Files\logbook\logbook-seal.exe" --hook --harness codex`; got != want {
		t.Errorf("cmd seal: %s\nwant %s", got, want)
	}
	gemini := Lookup("gemini")
	ps := ProjectTargetOn(gemini, ShellPowerShell, ".exe")
	ps.Server, ps.ServerKey, ps.ServerGates = "http://127.0.0.1:8421", "ab", true
	if got, want := ps.Command(Event{Name: "BeforeTool"}), `& "$env:GEMINI_PROJECT_DIR\.logbook\bin\record-step.exe" --harness gemini --server http://127.0.0.1:8421 --server-key ab --fail-closed --dir "$env:GEMINI_PROJECT_DIR\.logbook"`; got != want {
		t.Errorf("powershell server: %s\nwant %s", got, want)
	}
}

func TestManagedFileOn(t *testing.T) {
	cc := Lookup("claude-code")
	for goos, want := range map[string]string{
		"linux":   "/etc/claude-code/managed-settings.json",
		"darwin":  "/Library/Application Support/ClaudeCode/managed-settings.json",
		"windows": `C:\Program Files\ClaudeCode\managed-settings.json`,
	} {
		if got := cc.ManagedFileOn(goos); got != want {
			t.Errorf("%s: %s, want %s", goos, got, want)
		}
	}
}
