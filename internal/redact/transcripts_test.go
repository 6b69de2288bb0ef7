package redact

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// The folder corpora/agent-sessions of the shared data (internal/testkit/corpora)
// holds real Claude Code transcripts (marot/spotter fixtures, see its
// PROVENANCE.md). Their publisher scrubbed tokens and a grep for common
// secret patterns finds none, so every change String makes to them is a
// false positive.

// maxFalsePositiveRate is the share of real text String may change. A
// record is signed and hash-chained, so text lost to a false positive can
// never be recovered, and a redactor that blanks ordinary commands would
// soon be switched off. The corpus holds no secret, so the ideal is 0;
// 1% allows one odd line per hundred should the corpus grow, and with
// today's 86 commands it still means none may change.
const maxFalsePositiveRate = 0.01

// sessionStrings returns, from every transcript, the command of each Bash
// tool call; separately, the other short clear-text inputs a step's data
// can hold (paths, patterns, URLs, queries, descriptions); and every
// distinct line of every string in the transcripts (prompts, replies,
// tool output, source code), a much larger sample of ordinary text.
func sessionStrings(t testing.TB) (commands, metadata, lines []string) {
	t.Helper()
	// Absent, the check is skipped with a line saying so (CI, which has
	// the corpus, sets LOGBOOK_REQUIRE_CORPORA so it cannot pass silently);
	// testdata/redact/clean.txt is the project's own false-positive check.
	sessionsDir := corpora.Require(t, "corpora/agent-sessions", "false positives on real transcripts")
	var files []string
	err := filepath.WalkDir(sessionsDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			var all any
			if json.Unmarshal(sc.Bytes(), &all) == nil {
				eachString(all, func(v string) {
					for _, line := range strings.Split(v, "\n") {
						if !seen[line] {
							seen[line] = true
							lines = append(lines, line)
						}
					}
				})
			}
			var rec struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil || len(rec.Message.Content) == 0 || rec.Message.Content[0] != '[' {
				continue
			}
			var blocks []struct {
				Type  string                     `json:"type"`
				Name  string                     `json:"name"`
				Input map[string]json.RawMessage `json:"input"`
			}
			if json.Unmarshal(rec.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type != "tool_use" {
					continue
				}
				for key, raw := range b.Input {
					var v string
					if json.Unmarshal(raw, &v) != nil {
						continue
					}
					switch {
					case b.Name == "Bash" && key == "command":
						commands = append(commands, v)
					case key == "file_path", key == "path", key == "pattern", key == "glob",
						key == "url", key == "query", key == "description", key == "subagent_type":
						metadata = append(metadata, v)
					}
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return commands, metadata, lines
}

// eachString calls f on every string inside a decoded JSON value.
func eachString(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			eachString(e, f)
		}
	case map[string]any:
		for _, e := range v {
			eachString(e, f)
		}
	}
}

func TestTranscriptFalsePositives(t *testing.T) {
	commands, metadata, lines := sessionStrings(t)
	if len(commands) == 0 {
		t.Fatal("no Bash commands found in the transcripts")
	}
	rate := func(what string, list []string, summary bool) float64 {
		changed := 0
		for _, s := range list {
			if summary { // the step summary form: "Bash: <command>"
				s = "Bash: " + s
			}
			if got := String(s); got != s {
				changed++
				t.Logf("%s changed:\n in: %q\nout: %q", what, s, got)
			}
		}
		r := float64(changed) / float64(len(list))
		t.Logf("%s: %d/%d changed, false-positive rate %.2f%%", what, changed, len(list), 100*r)
		return r
	}
	if r := rate("Bash commands", commands, false); r > maxFalsePositiveRate {
		t.Errorf("false-positive rate on real commands %.2f%% > %.2f%%", 100*r, 100*maxFalsePositiveRate)
	}
	if r := rate("Bash summaries", commands, true); r > maxFalsePositiveRate {
		t.Errorf("false-positive rate on real summaries %.2f%% > %.2f%%", 100*r, 100*maxFalsePositiveRate)
	}
	if r := rate("other tool inputs", metadata, false); r > maxFalsePositiveRate {
		t.Errorf("false-positive rate on real tool inputs %.2f%% > %.2f%%", 100*r, 100*maxFalsePositiveRate)
	}
	// Source code and tool output are not what String is for (they are
	// stored as digests), but they are the largest sample of real text.
	if r := rate("all transcript lines", lines, false); r > maxFalsePositiveRate {
		t.Errorf("false-positive rate on all transcript lines %.2f%% > %.2f%%", 100*r, 100*maxFalsePositiveRate)
	}
}
