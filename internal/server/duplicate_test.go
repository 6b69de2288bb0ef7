package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/journalfile"
)

// TestDuplicateKeysLastWins: the server reads a payload's repeated keys as
// record-step does and as the harness's JSON.parse did, the last value
// winning (it used to keep the first): the step goes into the last
// session_id's journal, says the last command, and names the repeats.
func TestDuplicateKeysLastWins(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	body := `{"session_id":"dup-first","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1",` +
		`"tool_input":{"command":"ls"},"session_id":"dup-last","tool_input":{"command":"make test"}}`
	if code, resp := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/claude-code", []byte(body)); code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	if _, err := os.Stat(journalfile.Path(f.opts.Dir, "dup-first")); err == nil {
		t.Fatal("recorded under the first session_id")
	}
	b, err := os.ReadFile(journalfile.Path(f.opts.Dir, "dup-last"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "make test") || strings.Contains(s, `"ls"`) || !strings.Contains(s, `"duplicateKeys":["session_id","tool_input"]`) {
		t.Fatalf("%s", filepath.Base(journalfile.Path(f.opts.Dir, "dup-last"))+": "+s)
	}
}
