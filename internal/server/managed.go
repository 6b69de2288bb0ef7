package server

import (
	"crypto/sha256"
	"encoding/hex"
	"os"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// HooksEvent is the data.event of the note a server run with
// --managed-settings FILE appends after a session's first event: where the
// hooks came from, as the server found the harness's managed settings
// then (data.source "managed" or "unmanaged", data.file, data.sha256 of
// the file, data.reason when unmanaged). A payload cannot make it: the
// recorder keeps no data.source of a hook's own. logbook-verify
// --require-managed refuses a record without a "managed" one.
const HooksEvent = "logbook.hooks"

// hooksNote inspects the managed settings file: owned by root and
// writable by no one else all the way up, the managed-only switch on, and
// logbook's hooks in it.
func hooksNote(file, at string) chain.Step {
	source, reason := "managed", ""
	b, err := os.ReadFile(file)
	sum := sha256.Sum256(b)
	spec := hookconf.Lookup("claude-code")
	switch {
	case err != nil:
		source, reason = "unmanaged", "cannot read it: "+err.Error()
	case rootOnly(file) != nil:
		source, reason = "unmanaged", rootOnly(file).Error()
	case !hookconf.IsManagedOnly(b, spec.ManagedOnlyKey):
		source, reason = "unmanaged", spec.ManagedOnlyKey+" is not true: the agent's own hook files run too"
	case !hookconf.HasLogbookHooks(b, hookconf.Target{Spec: spec}):
		source, reason = "unmanaged", "it holds no logbook hook"
	}
	members := []strictjson.Member{
		{Key: "event", Value: strictjson.Str(HooksEvent)},
		{Key: "source", Value: strictjson.Str(source)},
		{Key: "file", Value: strictjson.Str(file)},
		{Key: "sha256", Value: strictjson.Str(hex.EncodeToString(sum[:]))},
	}
	summary := "hooks: managed (" + file + ")"
	if reason != "" {
		members = append(members, strictjson.Member{Key: "reason", Value: strictjson.Str(reason)})
		summary = "hooks: not managed (" + file + ": " + reason + ")"
	}
	return chain.Step{At: at, Kind: "note", Summary: summary, Data: strictjson.Obj(members...)}
}
