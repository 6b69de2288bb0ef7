// Package install writes, merges and removes the hook configuration that
// sends a harness's events to record-step and its session end to
// logbook-seal --hook (README, "Harnesses"). It edits configuration files
// as text (jsontext.go): an install adds its entries and changes no other
// byte, a second install changes nothing, and uninstall removes exactly the
// entries install adds, so install then uninstall gives the original file
// back byte for byte. A file it cannot read as one strict JSON object is
// refused and left untouched. Add and Remove are pure; Main does the files.
package hookconf

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Target is one configuration file to edit and how its hook commands read.
type Target struct {
	Spec *Spec
	// Bin is a shell expression for the directory holding record-step and
	// logbook-seal, as the hook command will see it.
	Bin string
	// DirFlag is appended to every command (" --dir …"), "" for none.
	DirFlag string
	// Server, when not "", is a logbook server's base URL (http://IP:PORT):
	// events go there (server.go) instead of to a local journal.
	Server string
	// ServerKey, when not "", is the server's public key (64 hex
	// digits), pinned in every record-step --server command
	// (--server-key): an answer it did not sign is not taken.
	ServerKey string
	// CommandHooks writes record-step --server commands for every event
	// even where the harness has HTTP hooks (Claude Code), which cannot
	// check a signature.
	CommandHooks bool
	// ServerGates: the server decides calls with an organization policy
	// (GET /v1/key's "gated"). The record-step --server commands of the
	// gated events (Gated) get --fail-closed: a call whose answer cannot
	// be confirmed (server down, an unsigned answer) is blocked, not run
	// ungated; and a missing record-step blocks it too.
	ServerGates bool
	// Policy, when not "", is appended to the command of each event the
	// organization policy gates (Gated): " --policy FILE --policy-key
	// PUB…", shell-quoted (docs/policy.md §7). PolicyFailOpen: the hook
	// lets a gated call through when record-step is missing (--policy-fail
	// allow); otherwise such a call is blocked (exit 2), as the gate itself
	// blocks a call it cannot decide.
	Policy         string
	PolicyFailOpen bool
	// ServerWait, when over 0 with ServerGates, is how long (seconds) a
	// gated record-step --server hook waits for a call the server holds
	// for an approver (--server-wait, docs/approvals.md); its handler's
	// timeout is made longer than that.
	ServerWait int
	// Shell is how the harness runs the command (shell.go): ShellPOSIX
	// (sh -c, Git Bash), or ShellCmd / ShellPowerShell on Windows, where
	// Bin is a path in that shell's syntax. Exe is the binaries' suffix
	// (".exe" on Windows).
	Shell, Exe string
}

// Gated reports whether the organization policy decides the harness's
// event name, under its canonical name (Gemini's BeforeTool, Cursor's
// beforeShellExecution, Copilot's preToolUse, …): kinds.Gated.
func Gated(name string) bool {
	c, _ := kinds.Canonical(name)
	if c == "" {
		c = name
	}
	return kinds.Gated(c)
}

// Command is the hook command line for event e. It first checks that the
// binary is there: a teammate who clones a project gets its hooks but not
// its .logbook/bin, and a bare missing command fails every hook with
// "not found" (exit 127) and no word on what to do. The check prints one
// line naming the fix on stderr (never stdout, which can reach the model)
// and exits 0, so the agent goes on.
func (t Target) Command(e Event) string {
	if t.Spec.Fixed != "" {
		return t.Spec.Fixed
	}
	if t.Server != "" {
		return t.serverCommand(e)
	}
	if t.Shell != ShellPOSIX {
		return t.plainCommand(e)
	}
	prog := "record-step"
	if e.Seal {
		prog = "logbook-seal"
	}
	prog += t.Exe
	path := t.Bin + "/" + prog
	c := path + " --harness " + t.Spec.Harness
	if e.Seal {
		c = path + " --hook --harness " + t.Spec.Harness
	}
	if e.Named {
		c += " --event " + e.Name
	}
	gated := t.Policy != "" && !e.Seal && Gated(e.Name)
	if gated {
		c += t.Policy
	}
	where := t.Bin
	if strings.HasPrefix(where, `"$`) {
		where = ".logbook/bin" // a project's: $ROOT/.logbook/bin
	}
	where = strings.NewReplacer("'", "", `"`, "", `\`, "").Replace(where)
	msg := "logbook: " + where + "/" + prog + " is missing, so this event is not recorded: run record-step install --harness " + t.Spec.Harness + " (it copies the binaries)"
	exit := " exit 0; }; "
	if gated && !t.PolicyFailOpen {
		// Nothing can apply the organization policy: the call is
		// blocked, as the gate blocks a call it cannot decide.
		msg = "logbook: " + where + "/" + prog + " is missing, so the organization policy cannot decide this call and it is blocked: run record-step install --harness " + t.Spec.Harness + " with --policy (it copies the binaries)"
		exit = " exit 2; }; "
	}
	return "test -x " + path + " || { " + t.missing(e, msg, where+"/"+prog) + exit + c + t.DirFlag
}

// missing is what a hook does when its binary is not there: one line on
// stderr; and at the start of a session, where the harness shows a hook's
// JSON "systemMessage" to the user (kinds.StartMessage), that the session
// is not recorded and how to get record-step, on stdout too. Without it a
// teammate who cloned the project would find the warning only in a
// transcript file.
func (t Target) missing(e Event, msg, what string) string {
	out := "echo '" + msg + "' >&2;"
	if !kinds.SessionStart(e.Name) || !kinds.StartMessage(t.Spec.Harness) {
		return out
	}
	how := "run record-step install --harness " + t.Spec.Harness
	if t.Server != "" {
		how += " --server URL"
	}
	start := "logbook: recording is OFF for this session: " + what + " is missing (a clone has the hooks, not the binaries). Get the logbook commands (in a checkout of github.com/logbook-project/logbook: go build -o ~/bin/ ./cmd/...), then " + how + " here; it copies record-step into .logbook/bin."
	start = strings.ReplaceAll(start, "'", "") // inside '…' on a shell line
	out += " echo '" + strings.TrimSuffix(string(kinds.SystemMessage(start)), "\n") + "';"
	if t.Spec.Harness == "claude-code" {
		// claude -p shows no systemMessage: the line goes to the terminal
		// it was started from, when there is one (as record-step's own
		// notice does: cmd/record-step/headless.go).
		out += ` case "$CLAUDE_CODE_ENTRYPOINT" in sdk-*) { echo '` + start + `' >/dev/tty; } 2>/dev/null;; esac;`
	}
	return out
}

// entry is what install adds to one event's list.
func (t Target) entry(e Event) node {
	h := t.handler(e)
	if t.Spec.Flat {
		return h
	}
	if e.Matcher != "" {
		return obj(kv("matcher", str(e.Matcher)), kv("hooks", arr(h)))
	}
	return obj(kv("hooks", arr(h)))
}

// newFile is the text of a configuration file install creates.
func (t Target) newFile() []byte {
	return []byte(style{unit: "  ", colon: ": ", nl: "\n"}.render(obj(t.Spec.Skeleton...), "") + "\n")
}

// Add returns old with every event of the target wired to logbook, and
// notes for the user. old == nil means the file does not exist. An event
// whose list already runs record-step or logbook-seal (an earlier install,
// or a block merged by hand) is left as it is. An error means old is not a
// configuration install can edit; nothing is changed then.
func Add(old []byte, t Target) ([]byte, []string, error) {
	text := old
	if len(bytes.TrimSpace(old)) == 0 {
		text = t.newFile()
	}
	if _, err := parseDoc(text); err != nil {
		return nil, nil, fmt.Errorf("cannot read it as a JSON object (%v)", err)
	}
	st := learnStyle(text)
	var notes []string
	for _, e := range t.Spec.Events {
		d, err := parseDoc(text)
		if err != nil {
			return nil, nil, fmt.Errorf("internal error: an edit broke the JSON (%v)", err)
		}
		entry := t.entry(e)
		hooks := d.root.Get("hooks")
		if hooks == nil {
			text = appendTo(text, st, d.root, memberText(st, kv("hooks", obj(kv(e.Name, arr(entry))))))
			continue
		}
		if hooks.Kind != strictjson.Object {
			return nil, nil, fmt.Errorf(`its "hooks" is not a JSON object`)
		}
		list := hooks.Get(e.Name)
		if list == nil {
			text = appendTo(text, st, hooks, memberText(st, kv(e.Name, arr(entry))))
			continue
		}
		if list.Kind != strictjson.Array {
			return nil, nil, fmt.Errorf(`its "hooks"."%s" is not a JSON array`, e.Name)
		}
		if cmd, h, found := t.logbookHandler(list); found {
			if !t.wanted(e, h) {
				notes = append(notes, fmt.Sprintf("%s already runs %q: left as it is", e.Name, cmd))
			}
			continue
		}
		text = appendTo(text, st, list, func(indent string) string { return st.render(entry, indent) })
	}
	return text, notes, nil
}

func memberText(st style, m member) func(string) string {
	return func(indent string) string { return quote(m.key) + st.colon + st.render(m.val, indent) }
}

// handlers lists the hook handlers of one event's list: the items
// themselves (flat) or the handlers inside each matcher group.
func (t Target) handlers(list *strictjson.Value, each func(item int, group *strictjson.Value, handler int, h *strictjson.Value) bool) {
	for i := range list.Items {
		it := &list.Items[i]
		if t.Spec.Flat {
			if each(i, nil, -1, it) {
				return
			}
			continue
		}
		inner := it.Get("hooks")
		if inner == nil || inner.Kind != strictjson.Array {
			continue
		}
		for j := range inner.Items {
			if each(i, inner, j, &inner.Items[j]) {
				return
			}
		}
	}
}

// logbookHandler finds a handler in list that runs record-step or
// logbook-seal, or posts to a logbook server, whoever wrote it.
func (t Target) logbookHandler(list *strictjson.Value) (cmd string, handler *strictjson.Value, found bool) {
	t.handlers(list, func(_ int, _ *strictjson.Value, _ int, h *strictjson.Value) bool {
		c, _ := h.GetString(t.Spec.CommandKey)
		if strings.Contains(c, "record-step") || strings.Contains(c, "logbook-seal") {
			cmd, handler, found = c, h, true
		} else if u, ok := serverURL(h); ok {
			cmd, handler, found = u, h, true
		}
		return found
	})
	return cmd, handler, found
}

// wanted reports whether h is the very handler install writes for e: the
// same command (or URL), and the same type, timeout, headers and all. A
// handler of an earlier install with other flags (recording here, not
// at --server; another server; another pinned key; a gate's
// --fail-closed) is not, and is rewritten (install.Run).
func (t Target) wanted(e Event, h *strictjson.Value) bool {
	want := t.handler(e)
	v, err := strictjson.Parse([]byte(style{colon: ":"}.render(want, "")), strictjson.Options{MaxDepth: 256})
	return err == nil && sameValue(v, h)
}

// sameValue compares two JSON values; an object's members in any order.
func sameValue(a, b *strictjson.Value) bool {
	if a.Kind != b.Kind || a.Str != b.Str || len(a.Items) != len(b.Items) || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Items {
		if !sameValue(&a.Items[i], &b.Items[i]) {
			return false
		}
	}
	for i := range a.Members {
		m := b.Get(a.Members[i].Key)
		if m == nil || !sameValue(&a.Members[i].Value, m) {
			return false
		}
	}
	return true
}

// ours reports a handler install added: it runs record-step or
// logbook-seal with this harness's --harness flag.
func (t Target) ours(h *strictjson.Value) bool {
	if u, ok := serverURL(h); ok {
		return strings.HasSuffix(u, hookRoute+t.Spec.Harness)
	}
	c, _ := h.GetString(t.Spec.CommandKey)
	if !strings.Contains(c, "record-step") && !strings.Contains(c, "logbook-seal") {
		return false
	}
	flag := "--harness " + t.Spec.Harness
	i := strings.Index(c, flag)
	return i >= 0 && (i+len(flag) == len(c) || c[i+len(flag)] == ' ')
}

// Remove returns old without the entries install adds for the target: each
// handler that runs record-step or logbook-seal with this harness's
// --harness flag (with its matcher group when it is the group's only
// handler), then an event list, the "hooks" object or the whole file left
// empty by that. gone is true when nothing but install's own skeleton is
// left: the file is to be deleted. removed counts the handlers taken out.
func Remove(old []byte, t Target) (text []byte, removed int, gone bool, err error) {
	text = old
	if _, err := parseDoc(text); err != nil {
		return nil, 0, false, fmt.Errorf("cannot read it as a JSON object (%v)", err)
	}
	for {
		d, err := parseDoc(text)
		if err != nil {
			return nil, 0, false, fmt.Errorf("internal error: an edit broke the JSON (%v)", err)
		}
		hooks := d.root.Get("hooks")
		if hooks == nil || hooks.Kind != strictjson.Object {
			break
		}
		next, ok := t.removeOne(d, hooks)
		if !ok {
			break
		}
		text = next
		removed++
	}
	if removed == 0 {
		return old, 0, false, nil
	}
	d, _ := parseDoc(text)
	return text, removed, t.onlySkeleton(d), nil
}

// removeOne takes out the first handler install added, and whatever that
// leaves empty.
func (t Target) removeOne(d doc, hooks *strictjson.Value) ([]byte, bool) {
	for ei := range hooks.Members {
		list := &hooks.Members[ei].Value
		if list.Kind != strictjson.Array {
			continue
		}
		var out []byte
		t.handlers(list, func(item int, group *strictjson.Value, h int, hv *strictjson.Value) bool {
			if !t.ours(hv) {
				return false
			}
			if group != nil && len(group.Items) > 1 {
				out = removeFrom(d.text, group, h)
				return true
			}
			out = removeFrom(d.text, list, item)
			if len(list.Items) > 1 {
				return true
			}
			// The event's list held only this entry: the event goes, and
			// the hooks object with it when it held only this event.
			if len(hooks.Members) > 1 {
				out = removeFrom(d.text, hooks, ei)
			} else {
				out = removeFrom(d.text, d.root, memberIndex(d.root, "hooks"))
			}
			return true
		})
		if out != nil {
			return out, true
		}
	}
	return nil, false
}

func memberIndex(o *strictjson.Value, key string) int {
	for i := range o.Members {
		if o.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// onlySkeleton reports a document holding nothing but what install writes
// into a file it creates (nothing, or Cursor's and Copilot's "version": 1).
func (t Target) onlySkeleton(d doc) bool {
	if len(d.root.Members) != len(t.Spec.Skeleton) {
		return false
	}
	for i, m := range d.root.Members {
		sk := t.Spec.Skeleton[i]
		if m.Key != sk.key || m.Value.Kind != strictjson.Number || m.Value.Str != sk.val.num {
			return false
		}
	}
	return true
}
