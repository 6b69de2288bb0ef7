package reviewtest

import (
	"bytes"
	"fmt"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// Big seals a record of n steps signed by Key: synth's "long" Claude Code
// session over and over (its tool calls given fresh toolUseIds each time
// round, so every call is its own row), one millisecond apart. It is the
// record the review benchmarks read.
func Big(n int) ([]byte, error) { return big(n, nil) }

// BigFleet is Big as a fleet's server records it: every step carries the
// actor the server writes (fleet.Member: dev1 in acme by an enrolled
// credential, asserting alice), as each step of a fleet's session does.
func BigFleet(n int) ([]byte, error) {
	actor := fleet.Member(fleet.Principal{By: fleet.ByCredential, Tenant: "acme", Subject: "dev1", Credential: "3f2a9c"}, "alice")
	return big(n, &actor)
}

// big is Big, with actor (when not nil) added to every step's data.
func big(n int, actor *strictjson.Member) ([]byte, error) {
	s, _ := synth.Claude("long")
	var events [][]byte
	for _, e := range s.Events {
		// SessionStart and SessionEnd once each, at the ends.
		if bytes.Contains(e, []byte(`"hook_event_name":"SessionStart"`)) || bytes.Contains(e, []byte(`"hook_event_name":"SessionEnd"`)) {
			continue
		}
		events = append(events, e)
	}
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	out.WriteByte('[')
	prev := ""
	for i := 0; i < n; i++ {
		var p []byte
		switch {
		case i == 0:
			p = []byte(`{"session_id":"big","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`)
		default:
			round, k := (i-1)/len(events), (i-1)%len(events)
			p = bytes.ReplaceAll(events[k], []byte(`"tool_use_id":"`), fmt.Appendf(nil, `"tool_use_id":"r%d-`, round))
		}
		ev, err := hookevent.Parse(p)
		if err != nil {
			return nil, fmt.Errorf("payload %d: %v", i, err)
		}
		st := ev.Step
		if actor != nil {
			st.Data.Members = append(st.Data.Members, *actor)
		}
		st.At = start.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		canon, hash, err := chain.Link(st, int64(i), prev)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(canon)
		prev = hash
	}
	out.WriteByte(']')
	end := start.Add(time.Duration(n-1) * time.Millisecond).Format(time.RFC3339Nano)
	return record.Assemble(record.Session{ID: "big", Agent: "claude-code", Cwd: "/w",
		StartedAt: start.Format(time.RFC3339Nano), EndedAt: end}, out.Bytes(), n, prev, Key)
}
