package kinds

// FieldKey is one key under which a harness sends one of the payload
// fields the recorder reads, at its place (Order) in that field's
// first-match list: where a payload carries several of a field's keys,
// the lowest Order wins. The order is behaviour (a Cursor payload carries
// conversation_id and session_id; the first is its session), so it is
// written down, not left to the order of the dialect files.
type FieldKey struct {
	Key   string
	Order int
	// First: the field is an array and its value is its first item
	// (Cursor's workspace_roots); otherwise it is the field itself.
	First bool
}

// Fields are the keys a dialect sends each field under. The recorder
// reads every field under the keys of every dialect (Keys): detection
// decides only the harness label, so a payload is read the same whoever
// is named as its sender.
type Fields struct {
	Event            []FieldKey // the event's name
	Session          []FieldKey // the session id
	Cwd              []FieldKey // the working directory
	ToolName         []FieldKey
	ToolInput        []FieldKey
	ImpliedInput     []FieldKey // the top-level input of an event that is one kind of tool call (Cursor's shell and edit events)
	ToolOutput       []FieldKey // a tool call's response, digested
	ToolResult       []FieldKey // a tool call's response read for a failure inside it
	ToolError        []FieldKey // a failed tool call's error, digested
	ToolUseID        []FieldKey
	Duration         []FieldKey // in milliseconds
	PermissionMode   []FieldKey
	Prompt           []FieldKey // the user's prompt
	ClaimInput       []FieldKey // what a stop answers: the prompt, the messages, the task
	Final            []FieldKey // the agent's final message
	StopReason       []FieldKey
	ErrorDetails     []FieldKey // a failed turn's details, beside "error"
	InitialPrompt    []FieldKey // a session start's prompt
	NotificationType []FieldKey
	AgentID          []FieldKey // the sub-agent an event belongs to
	AgentType        []FieldKey
	TurnID           []FieldKey // the user turn an event belongs to
	Instructions     []FieldKey // a compaction's custom instructions
	ErrorContext     []FieldKey
	Path             []FieldKey // inside a tool's input: the file it touches
	Patch            []FieldKey // inside a patch tool's input: the patch
	ResultType       []FieldKey // inside a tool's response: success or not
}

// numFields is the number of lists in Fields (lists).
const numFields = 27

// lists is every list of f, in the order of Fields.
func (f *Fields) lists() [numFields]*[]FieldKey {
	return [numFields]*[]FieldKey{
		&f.Event, &f.Session, &f.Cwd, &f.ToolName, &f.ToolInput, &f.ImpliedInput,
		&f.ToolOutput, &f.ToolResult, &f.ToolError, &f.ToolUseID, &f.Duration,
		&f.PermissionMode, &f.Prompt, &f.ClaimInput, &f.Final, &f.StopReason,
		&f.ErrorDetails, &f.InitialPrompt, &f.NotificationType, &f.AgentID,
		&f.AgentType, &f.TurnID, &f.Instructions, &f.ErrorContext, &f.Path,
		&f.Patch, &f.ResultType,
	}
}

// generalFields are the keys no one harness owns: Claude Code's
// snake_case spelling, which most of the others send as well, and the
// spellings no harness's documentation pins to one of them.
var generalFields = Fields{
	Event:            []FieldKey{{Key: "hook_event_name", Order: 10}},
	Session:          []FieldKey{{Key: "session_id", Order: 20}},
	Cwd:              []FieldKey{{Key: "cwd", Order: 10}},
	ToolName:         []FieldKey{{Key: "tool_name", Order: 10}},
	ToolInput:        []FieldKey{{Key: "tool_input", Order: 10}},
	ToolOutput:       []FieldKey{{Key: "tool_response", Order: 10}},
	ToolError:        []FieldKey{{Key: "error", Order: 10}},
	ToolUseID:        []FieldKey{{Key: "tool_use_id", Order: 10}},
	Duration:         []FieldKey{{Key: "duration_ms", Order: 10}},
	PermissionMode:   []FieldKey{{Key: "permission_mode", Order: 10}},
	Prompt:           []FieldKey{{Key: "prompt", Order: 10}},
	ClaimInput:       []FieldKey{{Key: "prompt", Order: 10}, {Key: "task", Order: 30}},
	Final:            []FieldKey{{Key: "last_assistant_message", Order: 10}, {Key: "summary", Order: 50}},
	StopReason:       []FieldKey{{Key: "reason", Order: 10}},
	ErrorDetails:     []FieldKey{{Key: "error_details", Order: 20}},
	InitialPrompt:    []FieldKey{{Key: "initial_prompt", Order: 20}},
	NotificationType: []FieldKey{{Key: "notification_type", Order: 10}},
	AgentID:          []FieldKey{{Key: "agent_id", Order: 10}, {Key: "subagent_id", Order: 20}},
	AgentType:        []FieldKey{{Key: "agent_type", Order: 10}, {Key: "subagent_type", Order: 20}, {Key: "agent_name", Order: 40}, {Key: "subagentType", Order: 50}},
	Instructions:     []FieldKey{{Key: "custom_instructions", Order: 10}, {Key: "customInstructions", Order: 20}},
	ErrorContext:     []FieldKey{{Key: "error_context", Order: 20}},
	Path:             []FieldKey{{Key: "file_path", Order: 10}, {Key: "path", Order: 30}},
}

// Keys are the first-match lists the recorder reads each field by: every
// dialect's keys and generalFields', lowest Order first, each key once.
// Built once at start-up into one array (about a hundred keys).
var Keys = func() Fields {
	var out Fields
	var srcs [len(registry) + 1]*Fields
	srcs[0] = &generalFields
	for i, d := range registry {
		srcs[i+1] = &d.Fields
	}
	total := 0
	for _, s := range srcs {
		for _, l := range s.lists() {
			total += len(*l)
		}
	}
	buf := make([]FieldKey, 0, total)
	dst := out.lists()
	for i := range dst {
		start := len(buf)
		for _, s := range srcs {
		keys:
			for _, k := range *s.lists()[i] {
				for _, seen := range buf[start:] {
					if seen.Key == k.Key {
						continue keys // TestFields: one Order wherever declared
					}
				}
				buf = append(buf, k)
			}
		}
		// Insertion sort: a handful of keys each, and no sort code
		// linked into record-step for them.
		l := buf[start:]
		for a := 1; a < len(l); a++ {
			for b := a; b > 0 && l[b].Order < l[b-1].Order; b-- {
				l[b], l[b-1] = l[b-1], l[b]
			}
		}
		*dst[i] = buf[start:len(buf):len(buf)]
	}
	return out
}()
