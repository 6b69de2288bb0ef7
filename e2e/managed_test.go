package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// hookSink is an HTTP hook receiver that keeps the event names it got.
type hookSink struct {
	*httptest.Server
	mu     sync.Mutex
	events []string
}

func newHookSink(t *testing.T) *hookSink {
	s := &hookSink{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var p struct {
			Event string `json:"hook_event_name"`
		}
		json.Unmarshal(b, &p)
		s.mu.Lock()
		s.events = append(s.events, p.Event)
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hookSink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.events...)
}

func count(events []string, name string) int {
	n := 0
	for _, e := range events {
		if e == name {
			n++
		}
	}
	return n
}

// TestRealClaudeCodeManaged runs the real Claude Code under managed
// settings: managedHooksRuns and managedServerRuns, four runs in
// parallel. The managed file is put at its real path (Claude Code
// 2.1.328 ignored $CLAUDE_CODE_MANAGED_SETTINGS_PATH when tried): each run gets its
// own folder bind-mounted on /etc/claude-code in a mount namespace of its
// own (unshare -m, as root), so the machine's /etc/claude-code, and any
// other claude running, never see it. The mount point is made when
// missing and removed once every run is done.
func TestRealClaudeCodeManaged(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	if os.Geteuid() != 0 {
		t.Skip("needs root: a mount namespace over /etc/claude-code (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) not found")
	}
	if _, err := os.Stat(etcClaude); err != nil {
		if err := os.Mkdir(etcClaude, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(etcClaude) })
	}
	managedHooksRuns(t, claude)
	managedServerRuns(t, claude)
}

// managedHooksRuns: record-step install --managed writes
// logbook's hooks into Claude Code's managed settings with
// allowManagedHooksOnly, and the real CLI then runs only those: the
// project's own hooks (the agent's file: a hook pointing at a proxy that
// would drop events, and one the agent adds during the session) never run,
// while every tool call reaches the managed hook. The control run, the
// same managed file without allowManagedHooksOnly, shows the project's hook
// does run otherwise.
func managedHooksRuns(t *testing.T, claude string) {
	for _, managedOnly := range []bool{true, false} {
		name := "managed-only"
		if !managedOnly {
			name = "control"
		}
		t.Run("hooks-"+name, func(t *testing.T) {
			t.Parallel()
			server, proxy := newHookSink(t), newHookSink(t)
			home, managed := t.TempDir(), t.TempDir()
			proj := filepath.Join(t.TempDir(), "proj")
			os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
			mfile := filepath.Join(managed, "managed-settings.json")
			inst := exec.Command(filepath.Join(bin, "record-step"), "install", "--harness", "claude-code", "--managed",
				"--config", mfile, "--bin", bin, "--server", server.URL)
			inst.Env = append(os.Environ(), "HOME="+home)
			out, err := inst.CombinedOutput()
			if err != nil {
				t.Fatalf("install --managed: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "writable by no one else") {
				t.Errorf("install --managed does not say the file is root's:\n%s", out)
			}
			b, _ := os.ReadFile(mfile)
			if !strings.Contains(string(b), `"allowManagedHooksOnly": true`) {
				t.Fatalf("managed settings without allowManagedHooksOnly:\n%s", b)
			}
			if !managedOnly {
				os.WriteFile(mfile, []byte(strings.Replace(string(b), `"allowManagedHooksOnly": true`, `"allowManagedHooksOnly": false`, 1)), 0o644)
			}
			// The agent's own file: every tool call also goes to a proxy.
			agentHook := func(url string) string {
				return `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"http","url":"` + url + `/v1/hooks/claude-code"}]}],` +
					`"PostToolUse":[{"matcher":"*","hooks":[{"type":"http","url":"` + url + `/v1/hooks/claude-code"}]}]}}`
			}
			os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(agentHook(proxy.URL)), 0o644)
			// During the session the agent rewrites the file again (as
			// it would to point the hooks elsewhere), then runs a command.
			script := &fakemodel.Script{Turns: []fakemodel.Turn{
				{Text: "Working.", Calls: []fakemodel.ToolCall{{ID: "toolu_01write", Name: "Write",
					Input: raw(`{"file_path":` + jsonString(filepath.Join(proj, ".claude", "settings.json")) + `,"content":` + jsonString(agentHook(proxy.URL+"/again")) + `}`)}}},
				{Text: "Working.", Calls: []fakemodel.ToolCall{{ID: "toolu_02bash", Name: "Bash", Input: raw(`{"command":"echo hello"}`)}}},
			}}
			srv, err := fakemodel.Anthropic(script)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "unshare", "-m", "--propagation", "private", "sh", "-c", `mount --bind "$0" `+etcClaude+` && exec "$@"`, managed, claude, "-p", "do the work", "--permission-mode", "bypassPermissions", "--output-format", "json")
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=",
			)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("claude: %v\n%s", err, out)
			}
			time.Sleep(300 * time.Millisecond) // a last hook's request in flight
			got, proxied := server.got(), proxy.got()
			testreport.Line(t, name+": managed hook got "+strings.Join(got, ",")+"; the project's hook got "+strings.Join(proxied, ","))
			if count(got, "PreToolUse") != 2 || count(got, "PostToolUse") != 2 {
				t.Errorf("%s: the managed hooks got %v, want both tool calls' PreToolUse and PostToolUse", name, got)
			}
			if managedOnly && len(proxied) != 0 {
				t.Errorf("allowManagedHooksOnly: the project's hook still ran: %v", proxied)
			}
			if !managedOnly && count(proxied, "PreToolUse") == 0 {
				t.Errorf("control: the project's hook did not run either (%v): the test cannot tell managed-only from no hooks", proxied)
			}
		})
	}
}

const etcClaude = "/etc/claude-code"

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// managedServerRuns: the whole deployment with the real CLI.
// install --managed points Claude Code's managed hooks at a logbook-server
// run with --managed-settings; the server notes that the session's hooks
// were managed, the agent's own hook file (a proxy) gets nothing, and the
// served record passes logbook-verify --require-managed at level server.
// Edited to turn allowManagedHooksOnly off, the same deployment's record
// is refused HOOKS_NOT_MANAGED.
func managedServerRuns(t *testing.T, claude string) {
	for _, managedOnly := range []bool{true, false} {
		name := map[bool]string{true: "managed", false: "switch-off"}[managedOnly]
		t.Run("server-"+name, func(t *testing.T) {
			t.Parallel()
			dir, home, managed := t.TempDir(), t.TempDir(), t.TempDir()
			mfile := filepath.Join(managed, "managed-settings.json")
			s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--managed-settings", mfile, "--log", "none")
			proxy := newHookSink(t)
			proj := filepath.Join(t.TempDir(), "proj")
			os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
			inst := exec.Command(filepath.Join(bin, "record-step"), "install", "--harness", "claude-code", "--managed",
				"--config", mfile, "--bin", bin, "--server", s.url)
			inst.Env = append(os.Environ(), "HOME="+home)
			if out, err := inst.CombinedOutput(); err != nil {
				t.Fatalf("install --managed: %v\n%s", err, out)
			}
			if !managedOnly {
				b, _ := os.ReadFile(mfile)
				os.WriteFile(mfile, []byte(strings.Replace(string(b), `"allowManagedHooksOnly": true`, `"allowManagedHooksOnly": false`, 1)), 0o644)
			}
			os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"http","url":"`+proxy.URL+`/v1/hooks/claude-code"}]}]}}`), 0o644)
			script := &fakemodel.Script{Turns: []fakemodel.Turn{{Text: "Working.", Calls: []fakemodel.ToolCall{{ID: "toolu_01bash", Name: "Bash", Input: raw(`{"command":"echo hello"}`)}}}}}
			srv, err := fakemodel.Anthropic(script)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "unshare", "-m", "--propagation", "private", "sh", "-c", `mount --bind "$0" `+etcClaude+` && exec "$@"`, managed, claude, "-p", "do the work", "--permission-mode", "bypassPermissions", "--output-format", "json")
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("claude: %v\n%s", err, out)
			}
			var res struct {
				SessionID string `json:"session_id"`
			}
			json.Unmarshal(out, &res)
			time.Sleep(300 * time.Millisecond)
			rdir := t.TempDir()
			rec, cp := filepath.Join(rdir, "r.json"), filepath.Join(rdir, "r.checkpoint")
			os.WriteFile(rec, fetch(t, s.url+"/v1/sessions/"+res.SessionID+"/record"), 0o644)
			os.WriteFile(cp, fetch(t, s.url+"/v1/sessions/"+res.SessionID+"/checkpoint"), 0o644)
			got, err := exec.Command(filepath.Join(bin, "logbook-verify"), "--pubkey", s.pub, "--checkpoint", cp, "--checkpoint-key", s.vkey, "--require-managed", rec).CombinedOutput()
			testreport.Line(t, name+": logbook-verify --require-managed: "+strings.SplitN(string(got), "\n", 2)[0])
			if managedOnly {
				if err != nil || !strings.Contains(string(got), "level=server") || len(proxy.got()) != 0 {
					t.Fatalf("managed: %v, the agent's hook got %v\n%s", err, proxy.got(), got)
				}
			} else if err == nil || !strings.HasPrefix(string(got), "REFUSED HOOKS_NOT_MANAGED") {
				t.Fatalf("switch off: %v\n%s", err, got)
			}
		})
	}
}
