package wraprun

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// FuzzCommandLine: a POSIX shell splits CommandLine's output back into the
// same arguments, so the recorded command line says exactly what ran.
// Arguments are joined by \x01 in the fuzz input (argv cannot hold NUL).
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"make\x01test", "echo\x01a b\x01it's", "--password=a b\x01x=\x01=v", "", "\x01",
		"$HOME\x01`id`\x01$(id)\x01\"q\"\x01\\\x01*\x01~\x01#c\x01a;b\x01a|b\x01a&b",
		"tab\there\x01new\nline\x01'\x01''\x01'\\''", "é\x01\xff\xfe\x01NAME='v'\x01a=b=c",
	} {
		f.Add(s)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		f.Skip("no sh")
	}
	f.Fuzz(func(t *testing.T, in string) {
		if strings.ContainsRune(in, 0) {
			return
		}
		argv := strings.Split(in, "\x01")
		line := CommandLine(argv)
		// eval splits the line as the shell would run it; printf gives
		// the words back, each followed by NUL.
		out, err := exec.Command("sh", "-c", `eval "set -- $1"; printf '%s\0' "$@"`, "sh", line).Output()
		if err != nil {
			t.Fatalf("%q: sh: %v", line, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if len(out) == 0 {
			got = nil
		}
		if !bytes.Equal([]byte(strings.Join(got, "\x01")), []byte(strings.Join(argv, "\x01"))) || len(got) != len(argv) {
			t.Fatalf("argv %q\nline %s\nback %q", argv, line, got)
		}
	})
}
