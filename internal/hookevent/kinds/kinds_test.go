package kinds

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOneTable: every tool a dialect names maps to a step kind of the
// format, and to the same kind wherever two dialects name it; every
// harness event maps to a Claude Code event, the same wherever listed;
// detection orders are unique, and every dialect has a rule.
func TestOneTable(t *testing.T) {
	t.Parallel()
	kinds := map[string]bool{"exec": true, "edit": true, "read": true, "write": true, "tool_call": true}
	tools := map[string]string{}
	events := map[string]Event{}
	orders := map[int]string{}
	for _, g := range generalRules {
		orders[g.order] = "generalRules"
	}
	for _, d := range registry {
		seen := map[string]bool{}
		for _, tk := range d.Tools {
			if k, ok := tools[tk.Name]; !kinds[tk.Kind] || seen[tk.Name] || (ok && k != tk.Kind) {
				t.Errorf("%s: tool %s: kind %q (or listed twice, or %q elsewhere)", d.Name, tk.Name, tk.Kind, k)
			}
			seen[tk.Name], tools[tk.Name] = true, tk.Kind
		}
		for _, e := range d.Events {
			if o, ok := events[e.Name]; seen["event "+e.Name] || (ok && o != e) {
				t.Errorf("%s: event %s listed twice, or as %+v elsewhere", d.Name, e.Name, o)
			}
			seen["event "+e.Name], events[e.Name] = true, e
			if e.Canonical == "" || (e.Kind != "" && !kinds[e.Kind]) {
				t.Errorf("%s: event %+v", d.Name, e)
			}
		}
		if len(d.Rules) == 0 {
			t.Errorf("%s: no detection rule", d.Name)
		}
		for _, r := range d.Rules {
			if o, ok := orders[r.Order]; ok || r.Match == nil {
				t.Errorf("%s: rule order %d also %s's", d.Name, r.Order, o)
			}
			orders[r.Order] = d.Name
		}
	}
	if registry[0].Name != "claude-code" {
		t.Error("registry[0] is not claude-code: Harnesses[1:] must be every other harness")
	}
	if len(rules) != len(orders) || !slices.IsSortedFunc(rules, func(a, b rule) int { return a.order - b.order }) {
		t.Errorf("rules out of order: %d rules, %d orders", len(rules), len(orders))
	}
}

// TestSystemMessage: the session-start notice is one JSON object whatever
// the message holds (quotes, controls, invalid UTF-8, line separators).
func TestSystemMessage(t *testing.T) {
	for _, msg := range []string{"plain", `a "quoted" \ back`, "line\nbreak\x1b[31m", "bad \xff utf-8", "sep \u2028 \u2029"} {
		b := SystemMessage(msg)
		var out struct{ SystemMessage string }
		if err := json.Unmarshal(b, &out); err != nil || !json.Valid(b) || b[len(b)-1] != '\n' {
			t.Errorf("%q: %s (%v)", msg, b, err)
			continue
		}
		if want := strings.ToValidUTF8(msg, "\uFFFD"); out.SystemMessage != want {
			t.Errorf("%q came back as %q", want, out.SystemMessage)
		}
	}
	if !SessionStart("sessionStart") || !SessionStart("SessionStart") || SessionStart("PreToolUse") {
		t.Error("SessionStart")
	}
}

// TestDetectionDocumented: docs/harnesses.md's table of detection rules
// lists the orders the registry has, no more, no fewer.
func TestDetectionDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/harnesses.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "**Where a harness lives.**")
	table, _, _ = strings.Cut(table, "**Adding a harness**")
	var documented []int
	for _, line := range strings.Split(table, "\n") {
		cell, ok := strings.CutPrefix(line, "| ")
		if !ok {
			continue
		}
		cell, _, _ = strings.Cut(cell, " |")
		lo, hi, isRange := strings.Cut(cell, "–")
		a, err := strconv.Atoi(lo)
		if err != nil {
			if x, y, ok := strings.Cut(cell, ", "); ok {
				for _, n := range []string{x, y} {
					if v, err := strconv.Atoi(n); err == nil {
						documented = append(documented, v)
					}
				}
			}
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				t.Fatalf("row %q", line)
			}
		}
		for n := a; n <= b; n++ {
			documented = append(documented, n)
		}
	}
	var orders []int
	for _, r := range rules {
		orders = append(orders, r.order)
	}
	if !slices.Equal(documented, orders) {
		t.Errorf("docs/harnesses.md lists rule orders %v, the registry has %v", documented, orders)
	}
}
