package verdict

import (
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// HooksEvent is the note a logbook server run with --managed-settings
// appends after a session's first event (internal/server): data.source
// says whether the hooks came from the harness's managed settings.
const HooksEvent = "logbook.hooks"

// requireManaged is step 11 (--require-managed): the record must be at
// level server or logged (only a server's checkpoint shows that the note
// is the server's, not the agent's), and its first logbook.hooks note,
// one of its first two steps, must say "managed". It returns the code and
// detail, or "".
func requireManaged(rec []byte, level string) (format.Code, string) {
	if level == checkpoint.LevelLocal {
		return format.HooksNotManaged, "level local: only a server's checkpoint can show where the hooks came from"
	}
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		return format.HooksNotManaged, "the record cannot be read again: " + err.Error()
	}
	steps := v.Get("steps")
	if steps == nil {
		return format.HooksNotManaged, "no steps"
	}
	for i := range steps.Items {
		d := steps.Items[i].Get("data")
		if d == nil || d.Kind != strictjson.Object {
			continue
		}
		if ev, _ := d.GetString("event"); ev != HooksEvent {
			continue
		}
		if i > 1 {
			return format.HooksNotManaged, "the first logbook.hooks note is not among the session's first two steps"
		}
		if src, _ := d.GetString("source"); src != "managed" {
			why, _ := d.GetString("reason")
			return format.HooksNotManaged, "the server found the hooks not managed: " + why
		}
		return "", ""
	}
	return format.HooksNotManaged, "no logbook.hooks note: the server was not run with --managed-settings, or the session began before it was"
}
