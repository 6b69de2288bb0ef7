// Command transcript2hooks converts a Claude Code transcript into the hook
// payloads Claude Code sent during that session, one JSON object per line on
// stdout.
//
//	transcript2hooks [-times FILE] [-stats] TRANSCRIPT > hooks.jsonl
//
// -times writes, line for line, the transcript instant each payload derives
// from (for LOGBOOK_NOW when replaying). -stats prints event counts and the
// agreement with the transcript's hook_progress records to stderr.
// Sub-agent transcripts are read from TRANSCRIPT's sibling folder
// <name>/subagents/ when present. Exit status: 0 done, 1 conversion or
// write error, 2 usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/logbook-project/logbook/internal/transcript"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("transcript2hooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	times := fs.String("times", "", "write the event timestamps, one per line, to `FILE`")
	stats := fs.Bool("stats", false, "print event counts and the hook_progress comparison to stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: transcript2hooks [-times FILE] [-stats] TRANSCRIPT > hooks.jsonl")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	events, st, err := transcript.ConvertFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "transcript2hooks:", err)
		return 1
	}
	if err := transcript.WriteJSONL(stdout, events); err != nil {
		fmt.Fprintln(stderr, "transcript2hooks:", err)
		return 1
	}
	if *times != "" {
		if err := writeTimes(*times, events); err != nil {
			fmt.Fprintln(stderr, "transcript2hooks:", err)
			return 1
		}
	}
	if *stats {
		printStats(stderr, st)
	}
	return 0
}

func writeTimes(path string, events []transcript.Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := transcript.WriteTimes(f, events); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func printStats(w io.Writer, st transcript.Stats) {
	names := make([]string, 0, len(st.Counts))
	total := 0
	for n, c := range st.Counts {
		names = append(names, n)
		total += c
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, st.Counts[n])
	}
	fmt.Fprintf(w, "records=%d events=%d %s\n", st.Records, total, strings.Join(parts, " "))
	for _, u := range st.Unmatched {
		fmt.Fprintf(w, "unmatched %s %s %s: %s\n", u.ToolName, u.ToolUseID, u.AgentID, u.Reason)
	}
	for _, u := range st.Silent {
		fmt.Fprintf(w, "no hooks %s %s %s: %s\n", u.ToolName, u.ToolUseID, u.AgentID, u.Reason)
	}
	h := st.Hooks
	fmt.Fprintf(w, "hook_progress firings=%d matched=%d in_order=%d max_lag=%s\n", h.Firings, h.Matched, h.InOrder, h.MaxLag)
	for _, m := range h.Missing {
		fmt.Fprintln(w, "hook_progress without event:", m)
	}
}
