package hookevent

import (
	"strings"

	"github.com/logbook-project/logbook/internal/strictjson"
	"testing"
)

// TestSkillShellCommand: Claude Code 2.1.332's PreSkillShellCommand (a
// skill's !`cmd` preamble, in the shape of 2.1.332's own schema) is an
// exec step that names the command, the skill and the tool the policy
// sees it as; a payload with the command at the top level is read too.
func TestSkillShellCommand(t *testing.T) {
	for _, p := range []string{
		// As Claude Code 2.1.332 sent it (a /deploy command whose text
		// holds !`cat .env`), ids shortened.
		`{"session_id":"a49c244b","transcript_path":"/h/.claude/projects/-p/a49c244b.jsonl","cwd":"/p","prompt_id":"d6a64e77","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"cat .env"},"tool_use_id":"dbe9bd9e:inner:preamble-0","command_name":"deploy","command_source":"projectSettings","invoked_by":"user"}`,
		`{"session_id":"s","cwd":"/p","hook_event_name":"PreSkillShellCommand","command_name":"deploy","command":"cat .env"}`,
	} {
		ev, err := Parse([]byte(p))
		if err != nil {
			t.Fatal(err)
		}
		cmd, _ := ev.Step.Data.GetString("command")
		tool, _ := ev.Step.Data.GetString("tool")
		skill, _ := ev.Step.Data.GetString("skill")
		if ev.Name != "PreSkillShellCommand" || ev.Step.Kind != "exec" || cmd != "cat .env" || tool != "Bash" || skill != "deploy" || len(ev.Step.Inputs) != 1 {
			t.Errorf("%s: %s %s command %q tool %q skill %q inputs %v", p, ev.Name, ev.Step.Kind, cmd, tool, skill, ev.Step.Inputs)
		}
		if ev.Step.Data.Get("unknownEvent") != nil {
			t.Errorf("%s: marked unknown", p)
		}
	}
	ev, _ := Parse([]byte(`{"session_id":"s","hook_event_name":"PreSkillShellCommand","tool_name":"PowerShell","tool_input":{"command":"Get-Content .env"},"command_name":"env","invoked_by":"claude"}`))
	tool, _ := ev.Step.Data.GetString("tool")
	by, _ := ev.Step.Data.GetString("invokedBy")
	if tool != "PowerShell" || by != "claude" || ev.Step.Kind != "exec" {
		t.Errorf("powershell preamble: tool %q invokedBy %q kind %s", tool, by, ev.Step.Kind)
	}
}

// TestCodexInterrupt: Codex's Interrupt (Ctrl-C: no Stop follows) is read
// as Codex's, named, and not marked unknown.
func TestCodexInterrupt(t *testing.T) {
	ev, err := Parse([]byte(`{"session_id":"019a","turn_id":"3","transcript_path":null,"cwd":"/p","hook_event_name":"Interrupt","model":"gpt-5.1-codex","permission_mode":"default"}`))
	if err != nil {
		t.Fatal(err)
	}
	name, _ := ev.Step.Data.GetString("event")
	if ev.Harness != "codex" || name != "Interrupt" || !strings.Contains(ev.Step.Summary, "interrupted") || ev.Step.Data.Get("unknownEvent") != nil {
		t.Errorf("harness %q event %q summary %q data %+v", ev.Harness, name, ev.Step.Summary, ev.Step.Data)
	}
}

// TestUnknownEventNamed: an event no harness has sent before is recorded
// (never dropped) as a note that names it and says it is unknown; a known
// event, or a dialect's own, is not marked.
func TestUnknownEventNamed(t *testing.T) {
	ev, err := Parse([]byte(`{"session_id":"s","hook_event_name":"PostSkillShellCommand","command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	name, _ := ev.Step.Data.GetString("event")
	if u := ev.Step.Data.Get("unknownEvent"); ev.Step.Kind != "note" || name != "PostSkillShellCommand" || u == nil || u.Kind != strictjson.True {
		t.Errorf("unknown event: kind %s event %q data %+v", ev.Step.Kind, name, ev.Step.Data)
	}
	for _, p := range []string{
		`{"session_id":"s","hook_event_name":"Notification"}`,
		`{"session_id":"s","hook_event_name":"BeforeModel","timestamp":"2026-01-01T00:00:00Z"}`,
	} {
		if ev, _ := Parse([]byte(p)); ev.Step.Data.Get("unknownEvent") != nil {
			t.Errorf("%s: marked unknown", p)
		}
	}
}
