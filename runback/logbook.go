package runback

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"time"

	"github.com/logbook-project/logbook"
	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
)

// WriteLogbook writes the run as recorded so far as a logbook session in
// dir (a session directory, as record-step uses) and seals it with key,
// returning the record's bytes (logbook-verify checks them). Each cassette
// event becomes one step, a tool call named "runback.TYPE" whose input is
// the event's seq, name and oracle key and whose output is its chain hash
// (_hash), so the record and the cassette attest the same events in the
// same order. The session id is the run id.
func (r *Recorder) WriteLogbook(dir string, key ed25519.PrivateKey) ([]byte, error) {
	r.mu.Lock()
	events := make([]js.Value, len(r.events))
	copy(events, r.events)
	r.mu.Unlock()
	hashes, digest := oracle.Chain(events)
	var h oracle.Hasher
	var last time.Time
	for i := range events {
		e := &events[i]
		typ := js.Prop(e, "type").Str
		name := js.Prop(js.Prop(e, "model"), "model_id").Str + js.Prop(e, "tool_name").Str + js.Prop(e, "kind").Str + js.Prop(e, "phase").Str
		input := map[string]any{"seq": js.Prop(e, "seq").Num, "type": typ, "name": name}
		if entry, ok, err := h.EntryOf(e); err == nil && ok {
			input["oracle_key"] = entry.Key.Str
		}
		payload, err := json.Marshal(map[string]any{
			"session_id": r.cfg.RunID, "hook_event_name": "PostToolUse", "tool_name": "runback." + typ,
			"tool_use_id": fmt.Sprintf("%s-%d", r.cfg.RunID, i), "tool_input": input,
			"tool_response": map[string]any{"_hash": hashes[i]},
		})
		if err != nil {
			return nil, err
		}
		at, err := time.Parse(time.RFC3339Nano, js.Prop(e, "ts_start").Str)
		if err != nil || at.Before(last) {
			at = last
		}
		last = at
		if _, err := logbook.RecordEvent(dir, payload, at); err != nil {
			return nil, fmt.Errorf("runback: logbook step %d: %w", i, err)
		}
	}
	sealed, err := logbook.Seal(dir, r.cfg.RunID, key, logbook.SealOptions{
		Goal: "runback run " + r.cfg.Name + ", content_digest " + digest,
		Now:  r.cfg.Clock(),
	})
	if err != nil {
		return nil, err
	}
	return sealed.Record, nil
}
