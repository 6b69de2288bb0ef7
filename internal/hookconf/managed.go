package hookconf

import (
	"fmt"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// Managed hook configuration: a system-wide file only root can write,
// which the harness reads besides (or instead of) the agent's own files
// (docs/harnesses.md, "Managed hooks"). Install writes logbook's hooks
// there with install --managed.

// ManagedOnly returns text with the top-level member key set to true (the
// switch that makes the harness ignore every hook but the managed ones:
// Claude Code's allowManagedHooksOnly), added when absent. A member of
// another kind or value is replaced: a managed install that left
// "allowManagedHooksOnly": false would leave the agent's files in force.
func ManagedOnly(text []byte, key string) ([]byte, error) {
	d, err := parseDoc(text)
	if err != nil {
		return nil, fmt.Errorf("cannot read it as a JSON object (%v)", err)
	}
	v := d.root.Get(key)
	if v == nil {
		return appendTo(text, learnStyle(text), d.root, memberText(learnStyle(text), kv(key, node{num: "true"}))), nil
	}
	if v.Kind == strictjson.True {
		return text, nil
	}
	return splice(text, v.Start, v.End, "true"), nil
}

// IsManagedOnly reports whether text's top-level member key is true.
func IsManagedOnly(text []byte, key string) bool {
	d, err := parseDoc(text)
	if err != nil {
		return false
	}
	v := d.root.Get(key)
	return v != nil && v.Kind == strictjson.True
}

// HasLogbookHooks reports whether the configuration text wires at least
// one of the spec's events to logbook (record-step, logbook-seal or a
// logbook server's hook route).
func HasLogbookHooks(text []byte, t Target) bool {
	d, err := parseDoc(text)
	if err != nil {
		return false
	}
	hooks := d.root.Get("hooks")
	if hooks == nil || hooks.Kind != strictjson.Object {
		return false
	}
	for _, e := range t.Spec.Events {
		if list := hooks.Get(e.Name); list != nil && list.Kind == strictjson.Array {
			if _, _, found := t.logbookHandler(list); found {
				return true
			}
		}
	}
	return false
}
