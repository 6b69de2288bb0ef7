package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// record is the part of one transcript line the converter reads. Claude Code
// writes many more keys; unknown ones are ignored.
type record struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	SessionID        string          `json:"sessionId"`
	AgentID          string          `json:"agentId"`
	Cwd              string          `json:"cwd"`
	Timestamp        string          `json:"timestamp"`
	PermissionMode   string          `json:"permissionMode"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          *message        `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	CompactMetadata  *struct {
		Trigger string `json:"trigger"`
	} `json:"compactMetadata"`
	Data            *progressData `json:"data"`
	ToolUseID       string        `json:"toolUseID"`
	ParentToolUseID string        `json:"parentToolUseID"`

	line int       // 1-based line in its file; agent_progress copies get the progress line
	time time.Time // parsed Timestamp; zero when absent
}

type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"` // a JSON string or an array of blocks
}

// block is one content block of a message. Text and Content stay raw so that
// strings copied into payloads keep the transcript's exact escaping.
type block struct {
	Type      string          `json:"type"`
	Text      json.RawMessage `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// progressData is the "data" of a progress record: hook_progress names a hook
// that ran, agent_progress carries a copy of one sub-agent message.
type progressData struct {
	Type      string  `json:"type"`
	HookEvent string  `json:"hookEvent"`
	HookName  string  `json:"hookName"`
	AgentID   string  `json:"agentId"`
	Message   *record `json:"message"`
}

// readRecords parses a JSONL transcript. Blank lines are skipped; a line that
// is not a JSON object is an error naming its line number.
func readRecords(r io.Reader) ([]*record, error) {
	br := bufio.NewReader(r)
	var recs []*record
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			rec := &record{}
			if uerr := json.Unmarshal(line, rec); uerr != nil {
				return nil, fmt.Errorf("line %d: %w", n, uerr)
			}
			if terr := rec.setTime(n); terr != nil {
				return nil, terr
			}
			if rec.Data != nil && rec.Data.Message != nil {
				if terr := rec.Data.Message.setTime(n); terr != nil {
					return nil, terr
				}
			}
			recs = append(recs, rec)
		}
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
}

func (r *record) setTime(line int) error {
	r.line = line
	if r.Timestamp == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
	if err != nil {
		return fmt.Errorf("line %d: timestamp: %w", line, err)
	}
	r.time = t.UTC()
	return nil
}

// blocks returns the message content as blocks; a plain string content gives
// nil (callers read it with contentString).
func (r *record) blocks() []block {
	if r.Message == nil || len(r.Message.Content) == 0 || r.Message.Content[0] != '[' {
		return nil
	}
	var bs []block
	if json.Unmarshal(r.Message.Content, &bs) != nil {
		return nil
	}
	return bs
}

// contentString returns the raw JSON string token when the content is a
// string, else nil.
func (r *record) contentString() json.RawMessage {
	if r.Message == nil || len(r.Message.Content) == 0 || r.Message.Content[0] != '"' {
		return nil
	}
	return r.Message.Content
}

func (r *record) hasToolUse() bool {
	for _, b := range r.blocks() {
		if b.Type == "tool_use" {
			return true
		}
	}
	return false
}

// textOf joins the text blocks of bs with "\n". With exactly one text block
// it returns that block's raw string token unchanged; with none it returns nil.
func textOf(bs []block) json.RawMessage {
	var texts []json.RawMessage
	for _, b := range bs {
		if b.Type == "text" && len(b.Text) > 0 {
			texts = append(texts, b.Text)
		}
	}
	switch len(texts) {
	case 0:
		return nil
	case 1:
		return texts[0]
	}
	var buf bytes.Buffer
	for i, t := range texts {
		var s string
		if json.Unmarshal(t, &s) != nil {
			continue
		}
		if i > 0 {
			buf.WriteByte('\n')
		}
		buf.WriteString(s)
	}
	return rawString(buf.String())
}

// rawString encodes s as a JSON string the way JavaScript would (no HTML
// escaping).
func rawString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// unquote decodes a raw JSON string token; anything else gives "".
func unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
