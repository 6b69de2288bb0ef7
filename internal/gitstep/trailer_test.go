package gitstep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// record-step trailer FILE adds one Logbook-Record trailer per session
// recording, once (a second run, as on an amend, adds none), and none
// when no session records; a usage error names nothing.
func TestTrailerHook(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	dir := filepath.Join(t.TempDir(), "sessions")
	msg := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
	env := func(k string) string {
		if k == "LOGBOOK_DIR" {
			return dir
		}
		return ""
	}
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		os.Chdir(repo)
		defer os.Chdir(wd)
		code := TrailerHook(args, &out, &errb, env)
		return code, out.String() + errb.String()
	}
	os.WriteFile(msg, []byte("fix the parser\n"), 0o644)
	if code, out := run(msg); code != 0 || out != "" {
		t.Fatalf("no session: %d %q", code, out)
	}
	if b, _ := os.ReadFile(msg); string(b) != "fix the parser\n" {
		t.Fatalf("no session, yet: %q", b)
	}
	j, err := journalfile.Open(dir, "s-42")
	if err != nil {
		t.Fatal(err)
	}
	j.Append(journalfile.Header{Session: "s-42"}, []chain.Step{{At: now(), Kind: "note", Summary: "start", Data: strictjson.Obj()}})
	j.Close()
	for i := 0; i < 2; i++ {
		if code, out := run(msg); code != 0 || out != "" {
			t.Fatalf("%d %q", code, out)
		}
	}
	if b, _ := os.ReadFile(msg); string(b) != "fix the parser\n\nLogbook-Record: s-42\n" {
		t.Fatalf("%q", b)
	}
	if code, out := run(); code != 2 || !strings.Contains(out, "usage") {
		t.Fatalf("no file: %d %q", code, out)
	}
}
