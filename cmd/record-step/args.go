package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// notJSONArg returns a message when the argument meant as a payload
// cannot be one: it does not start with '{' (a file name, most often),
// and says that the JSON goes on stdin.
func notJSONArg(arg []byte) string {
	t := bytes.TrimLeft(arg, " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		return ""
	}
	name := string(arg)
	if len(name) > 80 {
		name = name[:80] + "…"
	}
	return fmt.Sprintf("the argument %q is not a JSON payload: the payload goes on stdin (record-step < %s); an argument is only for Codex's notify program, which passes the JSON text itself", name, name)
}

// interactive reports whether r is a terminal: record-step typed by hand,
// not run as a hook (a harness always gives a hook a pipe or /dev/null).
func interactive(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && !os.SameFile(st, null)
}
