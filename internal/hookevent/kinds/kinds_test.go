package kinds

import "testing"

// TestOneTable: every tool the table names maps to a step kind of the
// format, and every harness event maps to a Claude Code event.
func TestOneTable(t *testing.T) {
	kinds := map[string]bool{"exec": true, "edit": true, "read": true, "write": true, "tool_call": true}
	seen := map[string]bool{}
	for _, tk := range toolKinds {
		if !kinds[tk.kind] || seen[tk.tool] {
			t.Errorf("tool %s: kind %q (or listed twice)", tk.tool, tk.kind)
		}
		seen[tk.tool] = true
	}
	seen = map[string]bool{}
	for _, e := range eventNames {
		name, info := e.name, e.eventInfo
		if seen[name] {
			t.Errorf("event %s listed twice", name)
		}
		seen[name] = true
		if info.canonical == "" || (info.kind != "" && !kinds[info.kind]) {
			t.Errorf("event %s: %+v", name, info)
		}
		if info.harness != "" && !KnownHarness(info.harness) {
			t.Errorf("event %s: harness %q", name, info.harness)
		}
	}
}
