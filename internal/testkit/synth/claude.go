package synth

import (
	"fmt"
	"strings"
	"time"
)

// The made-up project every session works on: a small Go command that
// sums the numbers in a file.
const (
	project = "/home/dev/tally"
	model   = "claude-sonnet-4-5-20250929"
)

var mainGo = "package main\n\nimport (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n\t\"strconv\"\n)\n\nfunc main() {\n\tsum := 0\n\tsc := bufio.NewScanner(os.Stdin)\n\tfor sc.Scan() {\n\t\tn, err := strconv.Atoi(sc.Text())\n\t\tif err != nil {\n\t\t\tcontinue\n\t\t}\n\t\tsum -= n\n\t}\n\tfmt.Println(sum)\n}\n"

// claude renders Claude Code's hook payloads (code.claude.com/docs, "Hooks
// reference"): the common keys session_id, transcript_path, cwd,
// permission_mode (absent on the session, compaction and notification events), then
// hook_event_name and the event's own keys.
type claude struct {
	builder
	id, transcript, mode string
	n                    int // tool_use_id counter
}

func newClaude(name, id, start string, seed uint32) *claude {
	c := &claude{id: id, mode: "default"}
	c.s = Session{Name: name, Harness: "claude-code", ID: id}
	c.transcript = "/home/dev/.claude/projects/-home-dev-tally/" + id + ".jsonl"
	c.clk = newClock(start, seed)
	return c
}

func (c *claude) head(event string, withMode bool, extra ...member) obj {
	o := obj{{"session_id", c.id}, {"transcript_path", c.transcript}, {"cwd", project}}
	if withMode {
		o = append(o, member{"permission_mode", c.mode})
	}
	o = append(o, member{"hook_event_name", event})
	return append(o, extra...)
}

func (c *claude) start(source string) {
	c.add(c.clk.next(100, 900), c.head("SessionStart", false, member{"source", source}, member{"model", model}))
}

func (c *claude) prompt(text string) {
	c.add(c.clk.next(4000, 30000), c.head("UserPromptSubmit", true, member{"prompt", text}))
}

func (c *claude) toolID() string {
	c.n++
	return fmt.Sprintf("toolu_01Tally%016dSynth", c.n)
}

// tool records one call: PreToolUse, then PostToolUse with its response,
// or PostToolUseFailure with its error when failure is not "".
func (c *claude) tool(name string, input obj, response any, failure string) {
	id := c.toolID()
	c.add(c.clk.next(1500, 9000), c.head("PreToolUse", true, member{"tool_name", name}, member{"tool_input", input}, member{"tool_use_id", id}))
	at := c.clk.next(20, 4000)
	if failure != "" {
		c.add(at, c.head("PostToolUseFailure", true, member{"tool_name", name}, member{"tool_input", input}, member{"tool_use_id", id},
			member{"error", failure}, member{"is_interrupt", false}))
		return
	}
	c.add(at, c.head("PostToolUse", true, member{"tool_name", name}, member{"tool_input", input}, member{"tool_response", response},
		member{"tool_use_id", id}, member{"duration_ms", c.clk.rand(3000) + 5}))
}

func (c *claude) stop(answer string) {
	c.add(c.clk.next(2000, 20000), c.head("Stop", true, member{"stop_hook_active", false}, member{"last_assistant_message", answer}))
}

func (c *claude) notify(kind, msg string) {
	c.add(c.clk.next(100, 60000), c.head("Notification", false, member{"message", msg}, member{"notification_type", kind}))
}

func (c *claude) permission(tool string, input obj) {
	c.add(c.clk.next(50, 500), c.head("PermissionRequest", true, member{"tool_name", tool}, member{"tool_input", input},
		member{"permission_suggestions", []obj{{{"type", "addRules"}, {"rules", []obj{{{"toolName", tool}, {"ruleContent", "go test:*"}}}}, {"behavior", "allow"}, {"destination", "localSettings"}}}}))
}

func (c *claude) end(reason string) {
	c.add(c.clk.next(1000, 30000), c.head("SessionEnd", false, member{"reason", reason}))
}

// The tools, each with the tool_input and tool_response Claude Code gives.

func (c *claude) read(path, content string) {
	lines := strings.Count(content, "\n")
	c.tool("Read", obj{{"file_path", path}}, obj{{"type", "text"}, {"file", obj{{"filePath", path}, {"content", content}, {"numLines", lines}, {"startLine", 1}, {"totalLines", lines}}}}, "")
}

func (c *claude) bash(cmd, desc, stdout string) {
	c.tool("Bash", obj{{"command", cmd}, {"description", desc}}, obj{{"stdout", stdout}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}, {"noOutputExpected", false}}, "")
}

func (c *claude) bashFails(cmd, desc, output string) {
	c.tool("Bash", obj{{"command", cmd}, {"description", desc}}, nil, "Exit code 1\n"+output)
}

func (c *claude) edit(path, old, new, before string) {
	c.tool("Edit", obj{{"file_path", path}, {"old_string", old}, {"new_string", new}, {"replace_all", false}},
		obj{{"filePath", path}, {"oldString", old}, {"newString", new}, {"originalFile", before},
			{"structuredPatch", []obj{{{"oldStart", 17}, {"oldLines", 1}, {"newStart", 17}, {"newLines", 1}, {"lines", []string{"-" + old, "+" + new}}}}},
			{"userModified", false}, {"replaceAll", false}}, "")
}

func (c *claude) write(path, content string) {
	c.tool("Write", obj{{"file_path", path}, {"content", content}},
		obj{{"type", "create"}, {"filePath", path}, {"content", content}, {"structuredPatch", []obj{}}, {"originalFile", nil}}, "")
}

func (c *claude) grep(pattern, path string, files []string) {
	c.tool("Grep", obj{{"pattern", pattern}, {"path", path}, {"output_mode", "files_with_matches"}},
		obj{{"mode", "files_with_matches"}, {"filenames", files}, {"numFiles", len(files)}}, "")
}

func (c *claude) glob(pattern string, files []string) {
	c.tool("Glob", obj{{"pattern", pattern}}, obj{{"filenames", files}, {"durationMs", 12}, {"numFiles", len(files)}, {"truncated", false}}, "")
}

func (c *claude) webfetch(url, prompt, result string) {
	c.tool("WebFetch", obj{{"url", url}, {"prompt", prompt}},
		obj{{"bytes", 48211}, {"code", 200}, {"codeText", "OK"}, {"result", result}, {"durationMs", 1840}, {"url", url}}, "")
}

func (c *claude) mcp(name string, input obj, text string) {
	c.tool(name, input, []obj{{{"type", "text"}, {"text", text}}}, "")
}

func (c *claude) todos(items ...string) {
	var todos []obj
	for i, it := range items {
		st := "pending"
		if i == 0 {
			st = "in_progress"
		}
		todos = append(todos, obj{{"content", it}, {"status", st}, {"activeForm", "Working on: " + it}})
	}
	c.tool("TodoWrite", obj{{"todos", todos}}, obj{{"oldTodos", []obj{}}, {"newTodos", todos}}, "")
}

// agent runs a sub-agent: the Task call's PreToolUse, SubagentStart, the
// agent's own tool calls (same session, carrying agent_id), SubagentStop,
// then the Task's PostToolUse.
func (c *claude) agent(kind, desc, prompt, answer string, work func(a *claude)) {
	id := c.toolID()
	agentID := fmt.Sprintf("a%06x", c.n*7919)
	input := obj{{"description", desc}, {"prompt", prompt}, {"subagent_type", kind}}
	c.add(c.clk.next(1500, 9000), c.head("PreToolUse", true, member{"tool_name", "Task"}, member{"tool_input", input}, member{"tool_use_id", id}))
	c.add(c.clk.next(5, 50), obj{{"session_id", c.id}, {"transcript_path", c.transcript}, {"cwd", project}, {"agent_id", agentID}, {"agent_type", kind}, {"hook_event_name", "SubagentStart"}})
	sub := *c
	sub.s = Session{}
	work(&sub)
	for i, ev := range sub.s.Events {
		// The agent's events carry agent_id and agent_type after the mode.
		ev = []byte(strings.Replace(string(ev), `,"hook_event_name"`, `,"agent_id":"`+agentID+`","agent_type":"`+kind+`","hook_event_name"`, 1))
		c.s.Events = append(c.s.Events, ev)
		c.s.Times = append(c.s.Times, sub.s.Times[i])
	}
	c.clk, c.n = sub.clk, sub.n
	c.add(c.clk.next(500, 3000), obj{{"session_id", c.id}, {"transcript_path", c.transcript}, {"cwd", project}, {"permission_mode", c.mode},
		{"agent_id", agentID}, {"agent_type", kind}, {"hook_event_name", "SubagentStop"}, {"stop_hook_active", false},
		{"agent_transcript_path", "/home/dev/.claude/projects/-home-dev-tally/" + c.id + "/subagents/agent-" + agentID + ".jsonl"},
		{"last_assistant_message", answer}})
	c.add(c.clk.next(5, 200), c.head("PostToolUse", true, member{"tool_name", "Task"}, member{"tool_input", input},
		member{"tool_response", obj{{"status", "completed"}, {"prompt", prompt}, {"agentId", agentID}, {"content", []obj{{{"type", "text"}, {"text", answer}}}},
			{"totalDurationMs", 41230}, {"totalTokens", 18211}, {"totalToolUseCount", 3}, {"usage", obj{{"input_tokens", 9}, {"output_tokens", 611}}}}},
		member{"tool_use_id", id}, member{"duration_ms", 41230}))
}

func (c *claude) compact(trigger string) {
	c.add(c.clk.next(1000, 5000), c.head("PreCompact", false, member{"trigger", trigger}, member{"custom_instructions", ""}))
	c.add(c.clk.next(20000, 60000), c.head("SessionStart", false, member{"source", "compact"}, member{"model", model}))
}

func sessionID(n int) string {
	return fmt.Sprintf("5e55%04x-7a11-4d0c-9a5e-%012x", n, 0x7a11ed000000+n)
}

// Claude returns the Claude Code session of that name (one of Names), or
// false. short: one prompt, one command. tool_heavy: every kind of tool
// call, a failure, a permission prompt, a notification. subagent: a
// sub-agent's calls inside the session, a compaction, SessionEnd last.
// long: many turns and large bodies, for the demo and for speed. Each
// ends with SessionEnd, the event whose hook seals.
func Claude(name string) (Session, bool) {
	switch name {
	case "short":
		c := newClaude(name, sessionID(1), "2026-05-04T09:12:03Z", 1)
		c.start("startup")
		c.prompt("What does this repository do? Answer in one sentence.")
		c.bash("ls -la", "List the project files", "total 24\ndrwxr-xr-x 3 dev dev 4096 May  4 09:11 .\n-rw-r--r-- 1 dev dev   27 May  4 09:11 go.mod\n-rw-r--r-- 1 dev dev  331 May  4 09:11 main.go\n")
		c.stop("It is a tiny Go command, tally, that reads numbers from standard input and prints their sum.")
		c.end("prompt_input_exit")
		return c.s, true
	case "tool_heavy":
		c := newClaude(name, sessionID(2), "2026-05-04T10:00:00Z", 2)
		toolHeavy(c)
		return c.s, true
	case "subagent":
		c := newClaude(name, sessionID(3), "2026-05-05T14:30:00Z", 3)
		subagent(c)
		return c.s, true
	case "long":
		c := newClaude(name, sessionID(4), "2026-05-06T08:00:00Z", 4)
		long(c, 60)
		return c.s, true
	}
	return Session{}, false
}

func toolHeavy(c *claude) {
	fixed := strings.Replace(mainGo, "sum -= n", "sum += n", 1)
	c.start("startup")
	c.prompt("tally prints negative sums. Find the bug, fix it, add a test, and make sure `go test ./...` passes.")
	c.todos("Reproduce the wrong sum", "Fix the sign error", "Add a regression test", "Run the tests")
	c.glob("**/*.go", []string{project + "/main.go"})
	c.read(project+"/main.go", mainGo)
	c.grep(`sum \-= `, project, []string{project + "/main.go"})
	c.bash("printf '1\\n2\\n3\\n' | go run .", "Reproduce the wrong sum", "-6\n")
	c.edit(project+"/main.go", "\t\tsum -= n", "\t\tsum += n", mainGo)
	c.write(project+"/main_test.go", "package main\n\nimport \"testing\"\n\n// TestSum checks that three small numbers add up; the sign bug made it -6.\nfunc TestSum(t *testing.T) {\n\tif got := sum([]int{1, 2, 3}); got != 6 {\n\t\tt.Fatalf(\"sum = %d, want 6\", got)\n\t}\n}\n")
	c.permission("Bash", obj{{"command", "go test ./..."}, {"description", "Run the tests"}})
	c.bashFails("go test ./...", "Run the tests", "# tally [tally.test]\n./main_test.go:7:12: undefined: sum\nFAIL\ttally [build failed]\nFAIL")
	c.edit(project+"/main.go", "func main() {", "func sum(ns []int) (s int) {\n\tfor _, n := range ns {\n\t\ts += n\n\t}\n\treturn s\n}\n\nfunc main() {", fixed)
	c.bash("go test ./...", "Run the tests", "ok  \ttally\t0.004s\n")
	c.webfetch("https://pkg.go.dev/bufio#Scanner", "Does Scanner handle lines longer than 64 KiB?", "No: the default buffer holds 64 KiB; call Buffer to allow longer lines, or Scan stops with ErrTooLong.")
	c.mcp("mcp__tracker__create_issue", obj{{"title", "Lines over 64 KiB stop the scan"}, {"body", "bufio.Scanner's default buffer is 64 KiB; tally should call Buffer or report ErrTooLong instead of printing a partial sum."}}, `{"id":17,"url":"https://tracker.example.com/tally/issues/17","state":"open"}`)
	c.stop("Fixed the sign error in main.go (sum -= n became sum += n), moved the loop into sum() with a regression test, and `go test ./...` passes. I also filed issue 17 about lines longer than 64 KiB.")
	c.notify("idle_prompt", "Claude is waiting for your input")
	c.end("clear")
}

func subagent(c *claude) {
	c.start("startup")
	c.prompt("Review the error handling in this project with a sub-agent, then summarise what it found.")
	c.read(project+"/main.go", mainGo)
	c.agent("general-purpose", "Review error handling", "Read every Go file under "+project+" and list each place where an error is ignored or lost, with file and line.",
		"One place: main.go line 15 skips lines that are not numbers without saying so; sc.Err() is never checked after the loop.",
		func(a *claude) {
			a.glob("**/*.go", []string{project + "/main.go", project + "/main_test.go"})
			a.read(project+"/main.go", mainGo)
			a.grep(`err != nil`, project, []string{project + "/main.go"})
		})
	c.stop("The review found two problems: lines that are not numbers are skipped silently, and a read error after the loop (sc.Err()) is never checked.")
	c.prompt("Fix both, with a test for each.")
	c.edit(project+"/main.go", "\t\t\tcontinue", "\t\t\tfmt.Fprintf(os.Stderr, \"tally: skipping %q: not a number\\n\", sc.Text())\n\t\t\tcontinue", mainGo)
	c.compact("auto")
	c.bash("go test ./...", "Run the tests", "ok  \ttally\t0.006s\n")
	c.stop("Both fixed: skipped lines are reported on stderr and a read error exits 1. Tests pass.")
	c.end("prompt_input_exit")
}

// long is n turns of reading, editing and testing, with bodies of a few
// to a few hundred kilobytes.
func long(c *claude, n int) {
	c.start("startup")
	for i := 0; i < n; i++ {
		file := fmt.Sprintf("%s/internal/part%03d/part.go", project, i)
		body := strings.Repeat(fmt.Sprintf("// part %d: a line of generated code that makes the body large enough to matter.\n", i), 20+c.clk.rand(200))
		c.prompt(fmt.Sprintf("Step %d: tidy %s and keep the tests green.", i+1, file))
		c.read(file, body)
		c.edit(file, "// part", "// Part", body)
		if i%7 == 3 {
			c.bashFails("go vet ./...", "Vet the code", fmt.Sprintf("./internal/part%03d/part.go:1:1: suspicious comment", i))
		}
		c.bash("go test ./...", "Run the tests", strings.Repeat("ok  \ttally/internal/part\t0.002s\n", 1+c.clk.rand(40)))
		if i%10 == 9 {
			c.notify("idle_prompt", "Claude is waiting for your input")
		}
		c.stop(fmt.Sprintf("Step %d done: %s tidied; go vet and go test pass.", i+1, file))
	}
	c.end("other")
}

var _ = time.Now
