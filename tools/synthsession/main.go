// Command synthsession writes one of the project's synthesized hook
// sessions (internal/testkit/synth), one JSON payload per line on stdout: what the
// demo and hand tests replay when no real session is at hand.
//
//	synthsession [-times FILE] NAME > hooks.jsonl
//
// NAME is a Claude Code session (short, tool_heavy, subagent, long) or a
// harness (codex, gemini, cursor, copilot-cli, copilot-cli-snake, vscode,
// grok). -times writes, line for line, each event's instant (for
// LOGBOOK_NOW). Exit status: 0 done, 1 write error, 2 usage.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/testkit/synth"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synthsession", flag.ContinueOnError)
	fs.SetOutput(stderr)
	times := fs.String("times", "", "write each event's instant, one per line, to `FILE`")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: synthsession [-times FILE] NAME > hooks.jsonl\nNAME: %s, or a harness: %s, copilot-cli-snake\n",
			strings.Join(synth.Names, ", "), strings.Join(synth.Harnesses[1:], ", "))
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	// The flag package prints the usage itself on -help and on a bad
	// flag; it is printed here instead, once, where it belongs.
	fs.Usage = func() {}
	if err := fs.Parse(args); err == flag.ErrHelp {
		usage(stdout) // asked for: stdout, exit 0
		return 0
	} else if err != nil {
		usage(stderr) // the flag package said what was wrong
		return 2
	}
	fs.Usage = func() { usage(stderr) }
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	s, ok := synth.Claude(fs.Arg(0))
	if !ok {
		s, ok = synth.Dialect(fs.Arg(0))
	}
	if !ok {
		fmt.Fprintf(stderr, "synthsession: no session named %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if err := writeLines(stdout, s.Events); err != nil {
		fmt.Fprintln(stderr, "synthsession:", err)
		return 1
	}
	if *times != "" {
		f, err := os.Create(*times)
		if err == nil {
			lines := make([][]byte, len(s.Times))
			for i, t := range s.Times {
				lines[i] = []byte(t)
			}
			err = writeLines(f, lines)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "synthsession:", err)
			return 1
		}
	}
	return 0
}

func writeLines(w io.Writer, lines [][]byte) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.Write(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
