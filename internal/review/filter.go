package review

import "fmt"

// Filters --only accepts.
var Filters = []string{"exec", "edit", "failed", "gaps"}

// Keep reports whether a call passes the filter: "exec" commands, "edit"
// file changes (edit and write), "failed" calls, calls with a "gaps"
// finding or that ran although the policy denied them. "" keeps
// everything.
func Keep(c *Call, only string) bool {
	switch only {
	case "":
		return true
	case "exec":
		return c.Kind == "exec"
	case "edit":
		return c.Kind == "edit" || c.Kind == "write"
	case "failed":
		return c.Failed
	case "gaps":
		return c.hasGaps() || c.bits&noteDeniedRan != 0
	}
	return false
}

// CheckFilter refuses an unknown --only value.
func CheckFilter(only string) error {
	if only == "" {
		return nil
	}
	for _, f := range Filters {
		if f == only {
			return nil
		}
	}
	return fmt.Errorf("--only %q: want one of exec, edit, failed, gaps", only)
}

// Filter returns the turns with only the calls that pass; events go, and
// turns and sub-agents left empty go with them.
func Filter(turns []Turn, only string) []Turn {
	if only == "" {
		return turns
	}
	var out []Turn
	for _, t := range turns {
		items := filterItems(t.Items, only)
		if len(items) > 0 {
			out = append(out, Turn{Number: t.Number, Prompt: t.Prompt, Items: items})
		}
	}
	if out == nil {
		out = []Turn{}
	}
	return out
}

func filterItems(items []Item, only string) []Item {
	out := []Item{}
	for _, it := range items {
		switch {
		case it.Call != nil && Keep(it.Call, only):
			out = append(out, it)
		case it.SubAgent != nil:
			sub := filterItems(it.SubAgent.Items, only)
			if len(sub) > 0 {
				a := *it.SubAgent
				a.Items = sub
				out = append(out, Item{SubAgent: &a, pos: it.pos})
			}
		}
	}
	return out
}

// CountCalls counts the calls in turns, sub-agents included.
func CountCalls(turns []Turn) int {
	n := 0
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			if it.Call != nil {
				n++
			}
			if it.SubAgent != nil {
				walk(it.SubAgent.Items)
			}
		}
	}
	for _, t := range turns {
		walk(t.Items)
	}
	return n
}
