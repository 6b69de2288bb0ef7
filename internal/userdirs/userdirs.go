// Package userdirs names the user's directories per system, as functions
// of GOOS so that each system's answer is tested everywhere.
package userdirs

import "path/filepath"

// Home is the user's home directory: $HOME; on Windows, where $HOME is
// usually unset (Git Bash sets it), %USERPROFILE% when it is. "" when
// unknown.
func Home(goos string, getenv func(string) string) string {
	if h := getenv("HOME"); h != "" || goos != "windows" {
		return h
	}
	return getenv("USERPROFILE")
}

// Config is logbook's own configuration directory (the signing key's):
// HOME/.config/logbook on Linux and macOS (where command-line tools keep
// theirs, and what the docs name), %APPDATA%\logbook on Windows
// (os.UserConfigDir's). "" when unknown.
func Config(goos string, getenv func(string) string) string {
	if goos == "windows" {
		if d := getenv("APPDATA"); d != "" {
			return d + `\logbook`
		}
		return ""
	}
	if h := Home(goos, getenv); h != "" {
		return filepath.Join(h, ".config", "logbook")
	}
	return ""
}
