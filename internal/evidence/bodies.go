package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Files lists a transcript and the sub-agent transcripts Claude Code keeps
// beside it, <dir>/<name>/subagents/agent-*.jsonl.
func Files(path string) []string {
	dir := filepath.Join(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".jsonl"), "subagents")
	sub, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	return append([]string{path}, sub...)
}

// Raw is what the transcript files hold outside the converted hook
// events: every tool input and tool_result content as exact JSON text, and
// each call's input and result by toolUseId.
type Raw struct {
	Bodies [][]byte
	Calls  map[string]*RawCall
	// Repeated names the calls (by toolUseId) the transcript gives a
	// second, different tool_use input or tool_result: one the
	// conversion, which keeps the first, would not see, and the record
	// never did.
	Repeated map[string]bool
}

// RawCall is one call's tool_use input and tool_result content (the text
// the model read), as the transcript holds them.
type RawCall struct {
	Input, Content []byte
}

// Scan reads the transcript files as RawBodies does, keeping each call's
// input and result by toolUseId (the first of each), and naming the calls
// that have a second one that differs.
func Scan(paths []string) (*Raw, error) {
	r := &Raw{Calls: map[string]*RawCall{}, Repeated: map[string]bool{}}
	err := scan(paths, func(line []byte) {
		for _, b := range blocksOf(line) {
			c := r.Calls[b.ID]
			if c == nil && b.ID != "" {
				c = &RawCall{}
				r.Calls[b.ID] = c
			}
			switch {
			case b.Type == "tool_use" && len(b.Input) > 0:
				r.Bodies = append(r.Bodies, b.Input)
				if c != nil && c.Input == nil {
					c.Input = b.Input
				} else if c != nil && !bytes.Equal(c.Input, b.Input) {
					r.Repeated[b.ID] = true
				}
			case b.Type == "tool_result" && len(b.Content) > 0:
				r.Bodies = append(r.Bodies, b.Content)
				if c != nil && c.Content == nil {
					c.Content = b.Content
				} else if c != nil && !bytes.Equal(c.Content, b.Content) {
					r.Repeated[b.ID] = true
				}
			}
		}
	})
	return r, err
}

// RawBodies reads the tool inputs (tool_use blocks) and tool results
// (tool_result blocks' content) of transcript files, as their exact JSON
// text. Check matches a body that no hook event of the conversion carries
// against them: the inputs of calls Claude Code refused before any hook,
// which only its PostToolBatch names. Lines that are not JSON are skipped:
// the conversion has already judged the file.
func RawBodies(paths []string) ([][]byte, error) {
	var out [][]byte
	err := scan(paths, func(line []byte) { out = append(out, bodiesOf(line)...) })
	return out, err
}

func scan(paths []string, each func([]byte)) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		br := bufio.NewReaderSize(f, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				each(line)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
	}
	return nil
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"-"`
	UseID     string          `json:"id"`
	ResultFor string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
}

func blocksOf(line []byte) []block {
	var rec struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' {
		return nil
	}
	var blocks []block
	if json.Unmarshal(rec.Message.Content, &blocks) != nil {
		return nil
	}
	for i := range blocks {
		blocks[i].ID = blocks[i].UseID
		if blocks[i].Type == "tool_result" {
			blocks[i].ID = blocks[i].ResultFor
		}
	}
	return blocks
}

func bodiesOf(line []byte) [][]byte {
	var rec struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' {
		return nil
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Input   json.RawMessage `json:"input"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(rec.Message.Content, &blocks) != nil {
		return nil
	}
	var out [][]byte
	for _, b := range blocks {
		switch {
		case b.Type == "tool_use" && len(b.Input) > 0:
			out = append(out, b.Input)
		case b.Type == "tool_result" && len(b.Content) > 0:
			out = append(out, b.Content)
		}
	}
	return out
}
