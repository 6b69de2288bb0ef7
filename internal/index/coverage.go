package index

import (
	"context"
	"fmt"
	"strconv"
)

// Coverage is what a security team asks of a tenant's recording: who
// stopped sending, and which sessions are incomplete.
type Coverage struct {
	// Silent are the known developers with no session that ended after
	// the cutoff, each with the end of their last session (0: none ever).
	Silent []Silent
	// Unended are sessions that stopped without a SessionEnd: no step
	// since QuietMS (newest first).
	Unended []*Session
	// Outages are sessions started since the cutoff that name events
	// lost, unsent or refused (newest first).
	Outages []*Session
}

// Silent is a developer who sent nothing since the cutoff.
type Silent struct {
	Developer string
	LastMS    int64 // 0: never recorded
}

// CoverageQuery asks for a tenant's coverage: Developers are the enrolled
// developers (the fleet's enrollment list), SinceMS the cutoff (now - N
// days), QuietMS the time after which an open session counts as stopped
// (now - an hour), Limit bounds each list of sessions.
type CoverageQuery struct {
	Tenant     string
	Developers []string
	SinceMS    int64
	QuietMS    int64
	Limit      int
}

// Coverage answers q. Each part walks an index: the developer's last
// session (sessions_last_seen), the open sessions by their last step
// (sessions_by_open), the sessions with an outage (sessions_by_outage).
func (x *Index) Coverage(ctx context.Context, q CoverageQuery) (Coverage, error) {
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		return Coverage{}, fmt.Errorf("%w: limit %d: want 1 to %d", ErrBadQuery, q.Limit, MaxLimit)
	}
	var c Coverage
	last, err := x.db.PrepareContext(ctx, x.lastSeenSQL())
	if err != nil {
		return c, err
	}
	defer last.Close()
	for _, d := range q.Developers {
		var ms int64
		if err := last.QueryRowContext(ctx, q.Tenant, d).Scan(&ms); err != nil {
			return c, err
		}
		if ms < q.SinceMS {
			c.Silent = append(c.Silent, Silent{Developer: d, LastMS: ms})
		}
	}
	for _, part := range []struct {
		sql  string
		args []any
		into *[]*Session
	}{
		{x.unendedSQL(q.Limit), []any{q.Tenant, q.QuietMS}, &c.Unended},
		{x.outageSQL(q.Limit), []any{q.Tenant, q.SinceMS}, &c.Outages},
	} {
		rows, err := x.db.QueryContext(ctx, part.sql, part.args...)
		if err != nil {
			return c, err
		}
		if *part.into, err = scan(rows); err != nil {
			return c, err
		}
	}
	return c, nil
}

func (x *Index) lastSeenSQL() string {
	return "SELECT COALESCE(MAX(end_ms), 0) FROM sessions " + x.hint("sessions", "sessions_last_seen") + " WHERE tenant = ? AND developer = ?"
}

func (x *Index) unendedSQL(limit int) string {
	return "SELECT " + sessionColumns + " FROM sessions " + x.hint("sessions", "sessions_by_open") +
		" WHERE tenant = ? AND ended = 0 AND end_ms < ? AND tombstoned = 0 ORDER BY end_ms DESC, id DESC LIMIT " + strconv.Itoa(limit)
}

func (x *Index) outageSQL(limit int) string {
	return "SELECT " + sessionColumns + " FROM sessions " + x.hint("sessions", "sessions_by_outage") +
		" WHERE tenant = ? AND outage = 1 AND start_ms >= ? ORDER BY start_ms DESC, id DESC LIMIT " + strconv.Itoa(limit)
}
