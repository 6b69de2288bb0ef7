package index

import (
	"fmt"
	"time"
)

// View is a session as the search route and the command line show it:
// times in RFC 3339 (UTC, milliseconds).
type View struct {
	ID        string   `json:"id"`
	Tenant    string   `json:"tenant"`
	Developer string   `json:"developer"`
	Machine   string   `json:"machine"`
	Repo      string   `json:"repo"`
	Cwd       string   `json:"cwd"`
	Harness   string   `json:"harness"`
	Start     string   `json:"start"`
	End       string   `json:"end"`
	Steps     int64    `json:"steps"`
	Level     string   `json:"level"`
	Policy    string   `json:"policy"`
	Ended     bool     `json:"ended"`
	Verdict   string   `json:"verdict"`
	Lost      int64    `json:"lost"`
	Unsent    int64    `json:"unsent"`
	Refused   int64    `json:"refused"`
	Commits   []string `json:"commits"`
	Tools     []string `json:"tools"`
	Decisions []string `json:"decisions"`
}

// ViewOf is s's view.
func ViewOf(s *Session) View {
	nz := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	return View{ID: s.ID, Tenant: s.Tenant, Developer: s.Developer, Machine: s.Machine, Repo: s.Repo, Cwd: s.Cwd, Harness: s.Harness,
		Start: Time(s.StartMS), End: Time(s.EndMS), Steps: s.Steps, Level: s.Level, Policy: s.Policy, Ended: s.Ended, Verdict: s.Verdict,
		Lost: s.Lost, Unsent: s.Unsent, Refused: s.Refused, Commits: nz(s.Commits), Tools: nz(s.Tools), Decisions: nz(s.Decisions)}
}

// Time writes Unix milliseconds as RFC 3339 UTC; "" for 0.
func Time(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// SetBounds reads a search's since and until ("" for none, else as
// ParseTime reads them) into q. A bound given is a bound wherever it
// falls: until=1970-01-01 (0 ms) finds only what started before the
// epoch, where it once meant no bound at all.
func (q *Query) SetBounds(since, until string) error {
	for _, b := range []struct {
		name, text string
		ms         *int64
		set        *bool
	}{{"since", since, &q.SinceMS, &q.SinceSet}, {"until", until, &q.UntilMS, &q.UntilSet}} {
		if b.text == "" {
			continue
		}
		ms, ok := ParseTime(b.text)
		if !ok {
			return fmt.Errorf("%w: %s: want RFC 3339 or YYYY-MM-DD", ErrBadQuery, b.name)
		}
		*b.ms, *b.set = ms, true
	}
	return nil
}

// ParseTime reads a search bound: RFC 3339, or a day (YYYY-MM-DD, UTC
// midnight).
func ParseTime(s string) (int64, bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixMilli(), true
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UnixMilli(), true
	}
	return 0, false
}
