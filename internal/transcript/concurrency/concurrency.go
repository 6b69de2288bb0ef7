// Package concurrency says which tool calls of one assistant message Claude
// Code runs side by side: read tools, and Bash commands that only read
// (approximating Claude Code's own read-only check with a small shell word
// splitter). The transcript converter orders hook events by it.
package concurrency

import (
	"encoding/json"
	"strings"
)

// Safe reports whether Claude Code would run this tool call in
// parallel with its siblings of the same assistant message. It matters for
// order: a call that is not safe waits until every earlier call of its message
// has finished, so its PreToolUse comes after their PostToolUse, not when the
// tool_use block was streamed. The hook_progress records of the corpus show
// exactly this (see docs/transcripts.md).
func Safe(tool string, input json.RawMessage) bool {
	switch tool {
	case "Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "NotebookRead",
		"Task", "Agent", "TaskOutput", "ToolSearch", "ListMcpResourcesTool", "ReadMcpResourceTool":
		return true
	case "Bash":
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(input, &in) != nil {
			return false
		}
		return ReadOnly(in.Command)
	}
	return false
}

// readOnlyCommands are shell commands that only read. It approximates Claude
// Code's own read-only check, which is what makes a Bash call concurrency-safe.
var readOnlyCommands = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true,
	"rg": true, "pwd": true, "echo": true, "which": true, "file": true,
	"stat": true, "du": true, "df": true, "tree": true, "sort": true,
	"uniq": true, "cut": true, "tr": true, "date": true, "whoami": true,
	"basename": true, "dirname": true, "realpath": true, "readlink": true,
	"jq": true, "true": true, "false": true, "test": true,
}

var readOnlyGit = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "rev-parse": true,
	"ls-files": true, "blame": true, "describe": true, "branch": true,
}

// ReadOnly reports whether every part of a command line (split at
// ;, &&, || and |) is a read-only command, with redirections only to
// /dev/null or between descriptors. Command substitution, subshells and
// find -exec/-delete make it not read-only.
func ReadOnly(cmd string) bool {
	if strings.TrimSpace(cmd) == "" || strings.ContainsAny(cmd, "`\n") || strings.Contains(cmd, "$(") {
		return false
	}
	parts := splitShell(cmd)
	if parts == nil {
		return false
	}
	for _, words := range parts {
		if len(words) == 0 {
			continue // "a;" or "a; ;"
		}
		for i, w := range words {
			if !redirectOK(w, words, i) {
				return false
			}
		}
		switch name := words[0]; {
		case name == "git":
			if len(words) < 2 || !readOnlyGit[words[1]] {
				return false
			}
		case name == "find":
			for _, w := range words {
				if w == "-exec" || w == "-execdir" || w == "-delete" || w == "-ok" {
					return false
				}
			}
		case !readOnlyCommands[name]:
			return false
		}
	}
	return true
}

// redirectOK accepts 2>&1, >/dev/null, 2>/dev/null (and the same with a
// space before /dev/null); any other word holding > or < is a redirection
// the converter cannot prove harmless.
func redirectOK(w string, words []string, i int) bool {
	if !strings.ContainsAny(w, "<>") {
		return true
	}
	t := strings.TrimLeft(w, "0123456789&")
	switch {
	case t == ">&1" || t == ">&2":
		return true
	case t == ">/dev/null":
		return true
	case t == ">" && i+1 < len(words) && words[i+1] == "/dev/null":
		return true
	}
	return false
}

// splitShell splits a command line into simple commands of words, honouring
// single and double quotes. It returns nil for shapes it does not handle
// (unbalanced quotes, subshells, background &).
func splitShell(cmd string) [][]string {
	var parts [][]string
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	endPart := func() {
		flush()
		parts = append(parts, words)
		words = nil
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(cmd[i+1:], c)
			if j < 0 {
				return nil
			}
			cur.WriteString(cmd[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == ' ' || c == '\t':
			flush()
		case c == ';':
			endPart()
		case c == '|':
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
			}
			endPart()
		case c == '&':
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				i++
				endPart()
			} else if i > 0 && cmd[i-1] == '>' {
				cur.WriteByte(c) // 2>&1
				inWord = true
			} else {
				return nil // background job
			}
		case c == '(' || c == ')':
			return nil
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	endPart()
	return parts
}
