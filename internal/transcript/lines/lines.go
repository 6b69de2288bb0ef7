// Package lines reads a Claude Code transcript: one JSON object a line,
// of which the converter needs a few members (the record's type, times,
// message and content blocks, tool results, progress data). Strings that
// go into payloads stay raw, so they keep the transcript's exact escaping.
package lines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Record is the part of one transcript line the converter reads. Claude Code
// writes many more keys; unknown ones are ignored.
type Record struct {
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
	Message          *Message        `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	CompactMetadata  *struct {
		Trigger string `json:"trigger"`
	} `json:"compactMetadata"`
	Data            *ProgressData `json:"data"`
	ToolUseID       string        `json:"toolUseID"`
	ParentToolUseID string        `json:"parentToolUseID"`

	Line int       `json:"-"` // 1-based line in its file; agent_progress copies get the progress line
	Time time.Time `json:"-"` // parsed Timestamp; zero when absent
}

type Message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"` // a JSON string or an array of blocks
}

// Block is one content block of a message. Text and Content stay raw so that
// strings copied into payloads keep the transcript's exact escaping.
type Block struct {
	Type      string          `json:"type"`
	Text      json.RawMessage `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ProgressData is the "data" of a progress record: hook_progress names a hook
// that ran, agent_progress carries a copy of one sub-agent message.
type ProgressData struct {
	Type      string  `json:"type"`
	HookEvent string  `json:"hookEvent"`
	HookName  string  `json:"hookName"`
	AgentID   string  `json:"agentId"`
	Message   *Record `json:"message"`
}

// BytesPerLine sets the line budget: a transcript may hold one line per
// BytesPerLine bytes read so far, plus minLines. A record takes about 400
// bytes of memory however short its line, so a transcript of "{}" lines
// would otherwise take some 150 times its size. Claude Code's lines carry
// a uuid, a session id and a timestamp: each is over 200 bytes.
const BytesPerLine = 64

const minLines = 1 << 10

// MaxBytes bounds a transcript (docs/limits.md); a variable so that tests
// can lower it.
var MaxBytes int64 = 1 << 30

// ErrTooManyLines is returned for a transcript with more lines than the
// budget (BytesPerLine) allows.
var ErrTooManyLines = fmt.Errorf("more than one line per %d bytes: too many to hold in memory", BytesPerLine)

// ErrTooLarge is returned for a transcript over MaxBytes.
var ErrTooLarge = errors.New("transcript over its size limit")

// Read parses a JSONL transcript. Blank lines are skipped; a line that
// is not a JSON object is an error naming its line number. A transcript
// over MaxBytes, or with more lines than BytesPerLine allows, is refused
// (ErrTooLarge, ErrTooManyLines).
func Read(r io.Reader) ([]*Record, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxBytes+1))
	var recs []*Record
	var total int64
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		total += int64(len(line))
		if total > MaxBytes {
			return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, MaxBytes)
		}
		if int64(n) > total/BytesPerLine+minLines {
			return nil, fmt.Errorf("line %d: %w", n, ErrTooManyLines)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			rec := &Record{}
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

func (r *Record) setTime(line int) error {
	r.Line = line
	if r.Timestamp == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
	if err != nil {
		return fmt.Errorf("line %d: timestamp: %w", line, err)
	}
	r.Time = t.UTC()
	return nil
}

// Blocks returns the message content as blocks; a plain string content gives
// nil (callers read it with ContentString).
func (r *Record) Blocks() []Block {
	if r.Message == nil || len(r.Message.Content) == 0 || r.Message.Content[0] != '[' {
		return nil
	}
	var bs []Block
	if json.Unmarshal(r.Message.Content, &bs) != nil {
		return nil
	}
	return bs
}

// ContentString returns the raw JSON string token when the content is a
// string, else nil.
func (r *Record) ContentString() json.RawMessage {
	if r.Message == nil || len(r.Message.Content) == 0 || r.Message.Content[0] != '"' {
		return nil
	}
	return r.Message.Content
}

// HasToolUse reports whether the message holds a tool_use block.
func (r *Record) HasToolUse() bool {
	for _, b := range r.Blocks() {
		if b.Type == "tool_use" {
			return true
		}
	}
	return false
}

// TextOf joins the text blocks of bs with "\n". With exactly one text block
// it returns that block's raw string token unchanged; with none it returns nil.
func TextOf(bs []Block) json.RawMessage {
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
	return RawString(buf.String())
}

// RawString encodes s as a JSON string the way JavaScript would (no HTML
// escaping).
func RawString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// Unquote decodes a raw JSON string token; anything else gives "".
func Unquote(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
