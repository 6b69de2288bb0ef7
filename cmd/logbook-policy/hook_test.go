package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/recorder"
)

// A call whose payload is over the limit is not read, so the policy
// cannot decide it: under --policy-fail deny (the default) it is
// blocked, as an unreadable one is, not let through ungated; --policy-fail
// allow lets it through.
func TestHookOversizePayloadBlocked(t *testing.T) {
	dir := t.TempDir()
	head := `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /","pad":"`
	for _, c := range []struct {
		fail string
		want int
	}{{"deny", 2}, {"allow", 0}} {
		big := io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, recorder.MaxPayload))
		var out, errb bytes.Buffer
		getenv := func(k string) string {
			if k == "HOME" {
				return dir
			}
			return ""
		}
		code := hook([]string{"--policy", "nosuch.json", "--policy-key", "nosuch.pub", "--policy-fail", c.fail, "--dir", dir}, big, &out, &errb, getenv)
		if code != c.want || !strings.Contains(errb.String(), "PAYLOAD_TOO_LARGE") {
			t.Errorf("--policy-fail %s: exit %d, want %d; stdout %q stderr %q", c.fail, code, c.want, out.String(), errb.String())
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'A'
	}
	return len(p), nil
}

// A working directory that is gone leaves no session directory to find:
// the call is not decided either, so --policy-fail deny blocks it.
func TestHookNoDirectoryBlocked(t *testing.T) {
	gone := t.TempDir() + "/gone"
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	for _, c := range []struct {
		fail string
		want int
	}{{"deny", 2}, {"allow", 0}} {
		var out, errb bytes.Buffer
		code := hook([]string{"--policy", "nosuch.json", "--policy-key", "nosuch.pub", "--policy-fail", c.fail}, strings.NewReader(payload), &out, &errb, func(string) string { return "" })
		if code != c.want {
			t.Errorf("--policy-fail %s: exit %d, want %d; stdout %q stderr %q", c.fail, code, c.want, out.String(), errb.String())
		}
	}
}
