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

// RawBodies reads the tool inputs (tool_use blocks) and tool results
// (tool_result blocks' content) of transcript files, as their exact JSON
// text. Check matches a body that no hook event of the conversion carries
// against them: the inputs of calls Claude Code refused before any hook,
// which only its PostToolBatch names. Lines that are not JSON are skipped:
// the conversion has already judged the file.
func RawBodies(paths []string) ([][]byte, error) {
	var out [][]byte
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		br := bufio.NewReaderSize(f, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, bodiesOf(line)...)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return nil, err
			}
		}
		f.Close()
	}
	return out, nil
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
