package transcript

import (
	"bufio"
	"encoding/json"
	"io"
	"time"
)

// Hook event names, as Claude Code spells them in hook_event_name.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	SessionEnd         = "SessionEnd"
)

// Event is one hook stdin payload. The field order is the key order Claude
// Code uses (checked against the captured payloads in
// shared/samples/hooks/claude-code): the common keys, then the event's own
// keys. Every event uses a subset, and the subsets never disagree on order, so
// one struct serves all events.
//
// Fields of type json.RawMessage hold JSON copied from the transcript
// (string tokens included), so the payload keeps the transcript's bytes
// rather than Go's re-encoding of them.
type Event struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	AgentID        string `json:"agent_id,omitempty"`
	AgentType      string `json:"agent_type,omitempty"`
	HookEventName  string `json:"hook_event_name"`

	Source               string          `json:"source,omitempty"`
	Model                string          `json:"model,omitempty"`
	Prompt               json.RawMessage `json:"prompt,omitempty"`
	ToolName             string          `json:"tool_name,omitempty"`
	ToolInput            json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse         json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID            string          `json:"tool_use_id,omitempty"`
	Error                json.RawMessage `json:"error,omitempty"`
	IsInterrupt          *bool           `json:"is_interrupt,omitempty"`
	DurationMs           *int64          `json:"duration_ms,omitempty"`
	StopHookActive       *bool           `json:"stop_hook_active,omitempty"`
	AgentTranscriptPath  string          `json:"agent_transcript_path,omitempty"`
	LastAssistantMessage json.RawMessage `json:"last_assistant_message,omitempty"`
	Trigger              string          `json:"trigger,omitempty"`
	CustomInstructions   json.RawMessage `json:"custom_instructions,omitempty"` // the JSON null for auto compaction
	CompactSummary       json.RawMessage `json:"compact_summary,omitempty"`
	Reason               string          `json:"reason,omitempty"`

	// Time is the transcript instant the event derives from.
	Time time.Time `json:"-"`
	// ResponseFromText: the transcript had no toolUseResult for this
	// call (sub-agent transcripts often lack it), so ToolResponse holds the
	// text the model saw instead of what the tool returned to Claude Code.
	ResponseFromText bool `json:"-"`
	// ResultContent is the tool_result's content, the text the model saw
	// (what Claude Code's PostToolBatch reports as a call's result); set
	// on PostToolUse and PostToolUseFailure.
	ResultContent json.RawMessage `json:"-"`
	// Line is the 1-based line of the main transcript the event derives
	// from (a prompt, the final text, a tool_use or tool_result); UseLine,
	// on a post-event, is its call's tool_use line. Both are 0 for a
	// sub-agent's events. The evidence check uses them to see lines moved.
	Line, UseLine int `json:"-"`
}

// TimeLayout is the form of the lines WriteTimes writes: RFC 3339, UTC,
// always three fractional digits. LOGBOOK_NOW accepts it.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// WriteJSONL writes one compact payload per line, without HTML escaping
// (Claude Code is JavaScript and writes <, > and & as they are). It returns
// the first write error.
func WriteJSONL(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteTimes writes, line for line with WriteJSONL, each event's Time in
// TimeLayout. It returns the first write error.
func WriteTimes(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	for _, e := range events {
		if _, err := bw.WriteString(e.Time.UTC().Format(TimeLayout) + "\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}
