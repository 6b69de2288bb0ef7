// Package shellrun runs a user's command line (a $PAGER, a --tsa-cmd)
// through the system's shell: sh -c, or on Windows cmd.exe.
package shellrun

import "strings"

// Argv is the command line that runs cmdline through goos's shell. On
// Windows it is cmd.exe /d /s /c "CMDLINE" (no AutoRun commands; /s takes
// the text between the outer quotes as it is), to be passed to Windows
// whole, not quoted again argument by argument.
func Argv(goos, cmdline string) []string {
	if goos == "windows" {
		return []string{"cmd.exe", "/d", "/s", "/c", `"` + cmdline + `"`}
	}
	return []string{"sh", "-c", cmdline}
}

// Line is Argv joined as Windows reads a command line.
func Line(goos, cmdline string) string { return strings.Join(Argv(goos, cmdline), " ") }
