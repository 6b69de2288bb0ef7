package transcript

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/transcript/lines"
)

// HookCheck compares the emitted events with the transcript's hook_progress
// records, Claude Code's own log of the hooks it ran. Only events that had a
// hook configured for them leave such a record, so this checks a sample of
// the events, not all of them.
type HookCheck struct {
	Firings int           // hook firings recorded: one per event instance, however many commands it ran
	Matched int           // firings that correspond to an emitted event
	InOrder int           // matched firings whose events keep the firings' relative order (longest such subsequence)
	Missing []string      // firings with no emitted event
	MaxLag  time.Duration // largest distance between a firing's time and its event's time
}

type firing struct {
	event, name, toolUseID string
	at                     time.Time
	seq                    int
}

// hookRecords returns the main transcript's records followed by every
// sub-agent transcript's, in a fixed order.
func (c *converter) hookRecords() []*lines.Record {
	recs := slices.Clone(c.main)
	ids := make([]string, 0, len(c.agents))
	for id := range c.agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		recs = append(recs, c.agents[id]...)
	}
	return recs
}

func checkHooks(recs []*lines.Record, events []Event) HookCheck {
	var firings []firing
	seen := map[string]bool{}
	for i, r := range recs {
		if r.Type != "progress" || r.Data == nil || r.Data.Type != "hook_progress" {
			continue
		}
		key := r.Data.HookEvent + "\x00" + r.ToolUseID
		if seen[key] {
			continue // another command of the same firing
		}
		seen[key] = true
		firings = append(firings, firing{event: r.Data.HookEvent, name: r.Data.HookName, toolUseID: r.ToolUseID, at: r.Time, seq: i})
	}
	slices.SortStableFunc(firings, func(a, b firing) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.seq, b.seq))
	})

	byTool := map[string]int{}
	byKind := map[string][]int{}
	for i, e := range events {
		if isToolEvent(e.HookEventName) {
			byTool[e.HookEventName+"\x00"+e.ToolUseID] = i
			continue
		}
		byKind[kindOf(e.HookEventName, e.Source)] = append(byKind[kindOf(e.HookEventName, e.Source)], i)
	}
	var hc HookCheck
	var order []int
	used := map[string]int{}
	for _, f := range firings {
		hc.Firings++
		idx, ok := byTool[f.event+"\x00"+f.toolUseID]
		if !ok {
			source, _ := strings.CutPrefix(f.name, f.event+":")
			k := kindOf(f.event, source)
			if n := used[k]; !isToolEvent(f.event) && n < len(byKind[k]) {
				idx, ok = byKind[k][n], true
				used[k]++
			}
		}
		if !ok {
			hc.Missing = append(hc.Missing, fmt.Sprintf("%s %s at %s", f.name, f.toolUseID, f.at.Format(TimeLayout)))
			continue
		}
		hc.Matched++
		order = append(order, idx)
		lag := f.at.Sub(events[idx].Time)
		hc.MaxLag = max(hc.MaxLag, lag, -lag)
	}
	hc.InOrder = longestIncreasing(order)
	return hc
}

func isToolEvent(name string) bool {
	return name == PreToolUse || name == PostToolUse || name == PostToolUseFailure
}

// kindOf groups events matched by position: SessionStart per source, other
// events per name.
func kindOf(event, source string) string {
	if event == SessionStart {
		return event + ":" + source
	}
	return event
}

// longestIncreasing is the length of the longest strictly increasing
// subsequence of xs (patience sorting).
func longestIncreasing(xs []int) int {
	var tails []int
	for _, x := range xs {
		i := sort.SearchInts(tails, x)
		if i == len(tails) {
			tails = append(tails, x)
		} else {
			tails[i] = x
		}
	}
	return len(tails)
}
