package kinds

import "strings"

// copilotCLI: GitHub Copilot CLI, both its dialects: camelCase payloads
// that carry no event name (sessionId) and PascalCase ones shaped like VS
// Code's (docs.github.com, "GitHub Copilot CLI hooks reference").
var copilotCLI = Dialect{
	Name: "copilot-cli",
	Events: []Event{
		{"sessionStart", "SessionStart", ""},
		{"sessionEnd", "SessionEnd", ""},
		{"preToolUse", "PreToolUse", ""},
		{"postToolUse", "PostToolUse", ""},
		{"postToolUseFailure", "PostToolUseFailure", ""},
		{"subagentStart", "SubagentStart", ""},
		{"subagentStop", "SubagentStop", ""},
		{"preCompact", "PreCompact", ""},
		{"userPromptSubmitted", "UserPromptSubmit", ""},
		{"agentStop", "Stop", ""},
		{"errorOccurred", "ErrorOccurred", ""},
		{"notification", "Notification", ""},
		{"permissionRequest", "PermissionRequest", ""},
		{"ErrorOccurred", "ErrorOccurred", ""},
	},
	Tools: []Tool{
		{"bash", "exec"},
		{"powershell", "exec"},
		{"edit", "edit"},
		{"create", "write"},
		{"view", "read"},
	},
	Fields: Fields{
		Session:       []FieldKey{{Key: "sessionId", Order: 30}},
		ToolName:      []FieldKey{{Key: "toolName", Order: 20}},
		ToolInput:     []FieldKey{{Key: "toolArgs", Order: 30}, {Key: "tool_args", Order: 40}},
		ToolOutput:    []FieldKey{{Key: "toolResult", Order: 20}, {Key: "tool_result", Order: 30}},
		ToolResult:    []FieldKey{{Key: "toolResult", Order: 20}, {Key: "tool_result", Order: 30}},
		StopReason:    []FieldKey{{Key: "stopReason", Order: 20}, {Key: "stop_reason", Order: 30}},
		InitialPrompt: []FieldKey{{Key: "initialPrompt", Order: 10}},
		AgentType:     []FieldKey{{Key: "agentName", Order: 30}},
		ErrorContext:  []FieldKey{{Key: "errorContext", Order: 10}},
		ResultType:    []FieldKey{{Key: "resultType", Order: 10}, {Key: "result_type", Order: 20}},
	},
	Rules: []Rule{
		// The camelCase dialect (a hookEventName is VS Code's, rule 21).
		{40, func(s Shape) bool { return s.Has("sessionId") }},
		// The PascalCase dialect: a timestamp and a transcript under
		// ~/.copilot.
		{72, func(s Shape) bool {
			return s.Has("timestamp") && strings.Contains(strings.ToLower(transcript(s)), "/.copilot/")
		}},
	},
	Unnamed: func(p Payload) (string, bool) {
		if p.Has("sessionId") {
			return copilotEvent(p), true
		}
		return "", false
	},
	// Its sessionStart output reaches no one on screen.

	// A top-level permissionDecision; "ask" asks.
	Gate: Gate{Form: GatePermissionDecision, Asks: true},
}

// copilotEvent names a camelCase payload from the fields only that event
// carries. The installed configuration passes --event, so this is the
// fallback for hand-written ones.
func copilotEvent(p Payload) string {
	switch {
	case p.Has("toolResult"):
		return "postToolUse"
	case p.Has("toolName") && p.Has("error"):
		return "postToolUseFailure"
	case p.Has("toolName"):
		return "preToolUse"
	case p.Has("agentName") && p.Has("stopReason"):
		return "subagentStop"
	case p.Has("agentName"):
		return "subagentStart"
	case p.Has("stopReason"):
		return "agentStop"
	case p.Has("errorContext") || p.Has("error"):
		return "errorOccurred"
	case p.Has("trigger"):
		return "preCompact"
	case p.Has("prompt"):
		return "userPromptSubmitted"
	case p.Has("source"):
		return "sessionStart"
	case p.Has("reason"):
		return "sessionEnd"
	}
	return ""
}
