package kinds

import (
	"slices"
	"testing"
)

// TestFields: the merged first-match lists are exactly the lists the
// recorder read each field by before the dialect files declared them (in
// that order: the order is behaviour), every key is declared by a dialect
// or generalFields, a key has one Order wherever declared, and no two keys
// of one field share an Order (which would leave their order to the
// registry's).
func TestFields(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"Event":            {"hook_event_name", "hookEventName"},
		"Session":          {"conversation_id", "session_id", "sessionId", "thread-id"},
		"Cwd":              {"cwd", "workspace_roots", "workspaceRoot"},
		"ToolName":         {"tool_name", "toolName"},
		"ToolInput":        {"tool_input", "toolInput", "toolArgs", "tool_args"},
		"ImpliedInput":     {"command", "edits"},
		"ToolOutput":       {"tool_response", "toolResult", "tool_result", "tool_output", "result_json", "output"},
		"ToolResult":       {"tool_response", "toolResult", "tool_result"},
		"ToolError":        {"error", "error_message"},
		"ToolUseID":        {"tool_use_id", "toolUseId"},
		"Duration":         {"duration_ms", "duration"},
		"PermissionMode":   {"permission_mode", "permissionMode"},
		"Prompt":           {"prompt"},
		"ClaimInput":       {"prompt", "input-messages", "task"},
		"Final":            {"last_assistant_message", "lastAssistantMessage", "prompt_response", "last-assistant-message", "summary"},
		"StopReason":       {"reason", "stopReason", "stop_reason", "status"},
		"ErrorDetails":     {"errorDetails", "error_details"},
		"InitialPrompt":    {"initialPrompt", "initial_prompt"},
		"NotificationType": {"notification_type", "notificationType"},
		"AgentID":          {"agent_id", "subagent_id"},
		"AgentType":        {"agent_type", "subagent_type", "agentName", "agent_name", "subagentType"},
		"TurnID":           {"prompt_id", "turn_id", "turn-id", "promptId", "generation_id"},
		"Instructions":     {"custom_instructions", "customInstructions"},
		"ErrorContext":     {"errorContext", "error_context"},
		"Path":             {"file_path", "notebook_path", "path", "filePath", "absolute_path", "target_file"},
		"Patch":            {"command", "input", "patch"},
		"ResultType":       {"resultType", "result_type"},
	}
	// The names of Fields' lists, in lists' order.
	names := []string{"Event", "Session", "Cwd", "ToolName", "ToolInput", "ImpliedInput",
		"ToolOutput", "ToolResult", "ToolError", "ToolUseID", "Duration",
		"PermissionMode", "Prompt", "ClaimInput", "Final", "StopReason",
		"ErrorDetails", "InitialPrompt", "NotificationType", "AgentID",
		"AgentType", "TurnID", "Instructions", "ErrorContext", "Path",
		"Patch", "ResultType"}
	if len(names) != numFields || len(want) != numFields {
		t.Fatalf("%d names, %d lists wanted, numFields %d", len(names), len(want), numFields)
	}
	merged := Keys.lists()
	for i, name := range names {
		var got []string
		for _, k := range *merged[i] {
			got = append(got, k.Key)
		}
		if !slices.Equal(got, want[name]) {
			t.Errorf("Keys.%s = %q, want %q", name, got, want[name])
		}
		first := map[string]bool{}
		for _, k := range *merged[i] {
			first[k.Key] = k.First
		}
		for k, f := range first {
			if f != (name == "Cwd" && k == "workspace_roots") {
				t.Errorf("Keys.%s: %s First = %v", name, k, f)
			}
		}
	}
	// Who declares each key of each field, and at which Order.
	srcs := map[string]*Fields{"generalFields": &generalFields}
	for _, d := range registry {
		srcs[d.Name] = &d.Fields
	}
	for i, name := range names {
		order := map[string]int{}   // key → Order
		byOrder := map[int]string{} // Order → key
		for src, f := range srcs {
			for _, k := range *f.lists()[i] {
				if k.Key == "" || k.Order <= 0 {
					t.Errorf("%s: %s: %+v", src, name, k)
				}
				if o, ok := order[k.Key]; ok && o != k.Order {
					t.Errorf("%s: %s: %s at %d, elsewhere at %d", src, name, k.Key, k.Order, o)
				}
				if o, ok := byOrder[k.Order]; ok && o != k.Key {
					t.Errorf("%s: %s: %s and %s both at %d", src, name, k.Key, o, k.Order)
				}
				order[k.Key], byOrder[k.Order] = k.Order, k.Key
			}
		}
		for _, k := range *merged[i] {
			if _, ok := order[k.Key]; !ok {
				t.Errorf("Keys.%s: %s declared by no dialect", name, k.Key)
			}
		}
		if len(order) != len(*merged[i]) {
			t.Errorf("Keys.%s: %d keys, %d declared", name, len(*merged[i]), len(order))
		}
	}
	// generalFields holds what no one dialect owns: a key one dialect
	// declares is not also general.
	for _, d := range registry {
		for i, name := range names {
			for _, k := range *d.Fields.lists()[i] {
				for _, g := range *generalFields.lists()[i] {
					if g.Key == k.Key {
						t.Errorf("%s: %s: %s is also in generalFields", d.Name, name, k.Key)
					}
				}
			}
		}
	}
}
