package hookconf

import "sync"

// Spec is one harness's hook configuration: where it lives, which events
// it wires, and how a hook entry is written there. Sources: each harness's
// hook documentation (docs/harnesses.md).
type Spec struct {
	Harness     string
	ProjectFile string // relative to the project directory
	LocalFile   string // Claude Code's uncommitted alternative (--local)
	UserFile    string // relative to the home directory; "" when the harness has no user scope
	// Root is a shell expression for the project root, as the harness runs
	// a project's hooks ("" when hooks run from the project root itself).
	Root string
	// Flat: each event holds a list of handlers (Cursor, Copilot CLI, VS
	// Code); otherwise a list of matcher groups, each with a "hooks" list
	// (Claude Code and the harnesses that copied its format).
	Flat     bool
	Skeleton []member // members of a file install creates, before "hooks"
	Events   []Event
	// Handler writes one hook handler for command cmd; seal is true for the
	// session-end hook.
	Handler func(cmd string, seal bool) node
	// CommandKey names the handler field holding the command.
	CommandKey string
	// HTTPHandler, when not nil, writes a "type": "http" handler posting
	// to url, for install --server (Claude Code); NoHTTP names the events
	// that take no HTTP hook, which get a record-step --server command.
	HTTPHandler func(url string, seal bool) node
	NoHTTP      map[string]bool
	// Notes are printed after an install: what the harness still needs.
	Notes []string
	// Fixed, when set, is every event's whole command (the start-directory
	// guard), instead of one built from Bin.
	Fixed string
	// ManagedFile is the harness's system-wide managed configuration,
	// which only root can write ("" when the harness has none that can
	// hold hooks); ManagedOnlyKey is the member that makes the harness
	// run the managed hooks only ("" when it has no such switch).
	ManagedFile, ManagedOnlyKey string
}

// Event is one hook event the configuration wires.
type Event struct {
	Name    string
	Matcher string // "" for none
	Seal    bool   // runs logbook-seal --hook: records the event, then seals
	Named   bool   // pass --event NAME (the payload carries no event name)
}

func events(seal string, names ...string) []Event {
	out := make([]Event, 0, len(names))
	for _, n := range names {
		out = append(out, Event{Name: n, Seal: n == seal})
	}
	return out
}

func seconds(record, seal int) func(cmd string, s bool) node {
	return func(cmd string, s bool) node {
		t := record
		if s {
			t = seal
		}
		return obj(kv("type", str("command")), kv("command", str(cmd)), kv("timeout", num(t)))
	}
}

// Lookup returns the spec of the harness named, nil for none.
func Lookup(name string) *Spec { return specs()[name] }

// specs lists every harness install supports, by name. It is built on
// first use, not at start-up: record-step's hook path never needs it.
var specs = sync.OnceValue(func() map[string]*Spec {
	return map[string]*Spec{
		"claude-code": {
			Harness:     "claude-code",
			ProjectFile: ".claude/settings.json",
			LocalFile:   ".claude/settings.local.json",
			UserFile:    ".claude/settings.json",
			Root:        `"$CLAUDE_PROJECT_DIR"`,
			Events: func() []Event {
				// Every event Claude Code 2.1.3xx documents but three:
				// WorktreeCreate and WorktreeRemove, whose hooks replace
				// Claude Code's own git worktree handling (a hook that only
				// records would make creating a worktree fail and removing
				// one leave it in place), and MessageDisplay, sent for each
				// piece of streamed text (the final text comes with Stop).
				// record-step reads all three when wired by hand.
				ev := events("SessionEnd", "Setup", "SessionStart", "InstructionsLoaded", "UserPromptSubmit",
					"UserPromptExpansion", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
					"PermissionRequest", "PermissionDenied", "Notification", "SubagentStart", "SubagentStop",
					"TaskCreated", "TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult",
					"PreModelSwitch", "PostModelSwitch", "CwdChanged", "FileChanged", "DirectoryAdded",
					"ConfigChange", "PreCompact", "PostCompact", "Stop", "StopFailure", "SessionEnd")
				tools := map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true,
					"PermissionRequest": true, "PermissionDenied": true}
				for i := range ev {
					if tools[ev[i].Name] {
						ev[i].Matcher = "*"
					}
				}
				return ev
			}(),
			// SessionEnd hooks get little time (1.5 s unless a hook asks for
			// more); sealing 10,000 steps takes well under a second.
			Handler:    seconds(10, 5),
			CommandKey: "command",
			// Claude Code 2.1.63+ posts the payload itself; it takes no
			// HTTP hook for SessionStart and Setup.
			HTTPHandler: func(url string, seal bool) node {
				t := 10
				if seal {
					t = 5
				}
				// The server's bearer token, when it has one, comes from
				// the agent's environment (Claude Code interpolates only
				// the variables allowedEnvVars names).
				return obj(kv("type", str("http")), kv("url", str(url)), kv("timeout", num(t)),
					kv("headers", obj(kv("Authorization", str("Bearer $LOGBOOK_SERVER_TOKEN")))),
					kv("allowedEnvVars", arr(str("LOGBOOK_SERVER_TOKEN"))))
			},
			NoHTTP: map[string]bool{"SessionStart": true, "Setup": true},
			// Claude Code's managed settings on Linux (the folder can be
			// moved with $CLAUDE_CODE_MANAGED_SETTINGS_PATH, which
			// whoever starts claude sets); with allowManagedHooksOnly it
			// runs no hook from the user's, project's or local settings.
			ManagedFile:    "/etc/claude-code/managed-settings.json",
			ManagedOnlyKey: "allowManagedHooksOnly",
		},
		// The user-level guard a Claude Code project install adds: Claude
		// Code reads hooks only from the directory it starts in, so a
		// session started below a recording project would record nothing.
		// Before each prompt this walks up from the start directory to
		// the first project with logbook's binaries and lets its
		// record-step judge (internal/startdir); elsewhere it costs a few
		// shell builtins and exits 0.
		"claude-code-guard": {
			Harness:    "claude-code-guard",
			UserFile:   ".claude/settings.json",
			Events:     []Event{{Name: "UserPromptSubmit"}},
			Handler:    seconds(5, 5),
			CommandKey: "command",
			Fixed:      `d="$CLAUDE_PROJECT_DIR"; while [ -n "$d" ]; do d="${d%/*}"; if [ -x "$d/.logbook/bin/record-step" ]; then exec "$d/.logbook/bin/record-step" guard --harness claude-code-guard ; fi; done; exit 0`,
		},
		"codex": {
			Harness:     "codex",
			ProjectFile: ".codex/hooks.json",
			UserFile:    ".codex/hooks.json",
			// Codex runs hooks in the session's directory, which may be below
			// the project root.
			Root: `"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"`,
			// Codex has no session-end event: the record is sealed at the end
			// of every turn, each seal covering every step so far.
			Events: events("Stop", "SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
				"PostToolUse", "PreCompact", "PostCompact", "Stop"),
			Handler:    seconds(10, 30),
			CommandKey: "command",
			Notes: []string{
				"Codex asks you to review and trust new hooks before they run (and older builds need `codex_hooks = true` under [features] in config.toml).",
			},
		},
		"gemini": {
			Harness:     "gemini",
			ProjectFile: ".gemini/settings.json",
			UserFile:    ".gemini/settings.json",
			Root:        `"$GEMINI_PROJECT_DIR"`,
			// PreCompress is not wired: Gemini CLI 0.61 sends it before every
			// model call, whether or not it compresses, which filled short
			// sessions with notes. BeforeModel, AfterModel and
			// BeforeToolSelection are model traffic, once per streamed chunk.
			Events: events("SessionEnd", "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent",
				"Notification", "SessionEnd"),
			Handler: func(cmd string, seal bool) node {
				name, t := "logbook-record-step", 10000 // milliseconds
				if seal {
					name, t = "logbook-seal", 30000
				}
				return obj(kv("name", str(name)), kv("type", str("command")), kv("command", str(cmd)), kv("timeout", num(t)))
			},
			CommandKey: "command",
			Notes: []string{
				"Gemini CLI runs project hooks only in a trusted folder (or with GEMINI_CLI_TRUST_WORKSPACE=true); hooks are on by default (hooksConfig.enabled).",
			},
		},
		"cursor": {
			Harness:     "cursor",
			ProjectFile: ".cursor/hooks.json",
			UserFile:    ".cursor/hooks.json",
			Flat:        true,
			Skeleton:    []member{kv("version", num(1))},
			// The generic tool events cover shell, MCP, read and edit calls:
			// wiring beforeShellExecution and the like as well would record each
			// call twice.
			Events: events("sessionEnd", "sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse",
				"postToolUseFailure", "subagentStart", "subagentStop", "preCompact", "afterAgentResponse", "stop", "sessionEnd"),
			Handler:    func(cmd string, _ bool) node { return obj(kv("command", str(cmd))) },
			CommandKey: "command",
			Notes: []string{
				"User-level Cursor hooks run from ~/.cursor: set LOGBOOK_DIR, or records land there.",
			},
		},
		"copilot-cli": {
			Harness:     "copilot-cli",
			ProjectFile: ".github/hooks/logbook-copilot-cli.json",
			// User-level hook files load from ~/.copilot/hooks/*.json
			// (GitHub's Copilot CLI hooks reference; $COPILOT_HOME moves it).
			UserFile: ".copilot/hooks/logbook-copilot-cli.json",
			Flat:     true,
			Skeleton: []member{kv("version", num(1))},
			Events: func() []Event {
				ev := events("sessionEnd", "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse",
					"postToolUseFailure", "permissionRequest", "agentStop", "subagentStart", "subagentStop",
					"preCompact", "errorOccurred", "notification", "sessionEnd")
				for i := range ev {
					ev[i].Named = true // camelCase payloads carry no event name
				}
				return ev
			}(),
			Handler: func(cmd string, seal bool) node {
				t := 10
				if seal {
					t = 30
				}
				return obj(kv("type", str("command")), kv("bash", str(cmd)), kv("cwd", str(".")), kv("timeoutSec", num(t)))
			},
			CommandKey: "bash",
			Notes: []string{
				"VS Code also loads .github/hooks/*.json: install only one of copilot-cli and vscode in a repository, or both harnesses record each event twice.",
			},
		},
		"vscode": {
			Harness:     "vscode",
			ProjectFile: ".github/hooks/logbook-vscode.json",
			Flat:        true,
			Skeleton:    []member{kv("version", num(1))},
			// VS Code has no session-end event: Stop (the agent finishing)
			// seals, each seal covering every step so far.
			Events: events("Stop", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
				"PreCompact", "SubagentStart", "SubagentStop", "Stop"),
			Handler: func(cmd string, seal bool) node {
				t := 10
				if seal {
					t = 30
				}
				return obj(kv("type", str("command")), kv("command", str(cmd)), kv("cwd", str(".")), kv("timeout", num(t)))
			},
			CommandKey: "command",
			Notes: []string{
				"Copilot CLI also loads .github/hooks/*.json: install only one of copilot-cli and vscode in a repository, or both harnesses record each event twice.",
			},
		},
		"grok": {
			Harness:     "grok",
			ProjectFile: ".grok/hooks/logbook.json",
			UserFile:    ".grok/hooks/logbook.json",
			Root:        `"$GROK_WORKSPACE_ROOT"`,
			Events: events("SessionEnd", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
				"PostToolUseFailure", "PermissionDenied", "Notification", "SubagentStart", "SubagentStop",
				"PreCompact", "PostCompact", "Stop", "StopCancelled", "StopFailure", "SessionEnd"),
			Handler:    seconds(10, 30),
			CommandKey: "command",
			Notes: []string{
				"Grok Build runs project hooks only once the project is trusted (/hooks-trust).",
				"Grok Build also runs hooks configured for Claude Code and Cursor: with those installed too, set [compat.claude] hooks = false (and [compat.cursor]) in ~/.grok/config.toml, or each event is recorded twice.",
			},
		},
	}
})

// Names lists the harness names install knows, in a stable order.
func Names() []string {
	return []string{"claude-code", "codex", "gemini", "cursor", "copilot-cli", "vscode", "grok"}
}
