package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Policy is a tenant's retention: a sealed session whose last step is
// older than KeepDays is deleted by the next retention run (Retain).
type Policy struct {
	Tenant   string
	KeepDays int64
	SetBy    string
	SetMS    int64
}

// ErrNoPolicy is returned by Retain for a tenant with no policy: nothing
// is deleted until an admin sets one.
var ErrNoPolicy = errors.New("no retention policy for this tenant")

// ErrNotDue is what Retain's del returns for a session that changed since
// the index listed it (an event landed on another replica, which the
// index has yet to learn): it is skipped, not deleted, and judged again
// at the next run.
var ErrNotDue = errors.New("the session changed since the index listed it")

// HeldError is Retain's refusal when a session it would delete is under
// a legal hold: nothing was deleted.
type HeldError struct {
	Tenant string
	IDs    []string // the held sessions the policy reaches
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("retention refused: %d session(s) the policy would delete are under a legal hold (%s); nothing was deleted: release the hold or keep longer",
		len(e.IDs), strings.Join(e.IDs, ", "))
}

// MaxKeepDays bounds a policy (about 2,700 years): the run's cutoff,
// now less the days in milliseconds, stays far inside int64, where a
// larger count wrapped it into the future and deleted every session.
const MaxKeepDays = 1_000_000

// SetPolicy sets (replaces) a tenant's policy.
func (x *Index) SetPolicy(ctx context.Context, p Policy) error {
	if p.KeepDays < 1 || p.KeepDays > MaxKeepDays {
		return fmt.Errorf("%w: keep %d days: want 1 to %d", ErrBadQuery, p.KeepDays, MaxKeepDays)
	}
	return x.replace(ctx, "retention", "tenant = ?", []any{p.Tenant},
		"INSERT INTO retention (tenant, keep_days, set_by, set_ms) VALUES (?, ?, ?, ?)", p.Tenant, p.KeepDays, p.SetBy, p.SetMS)
}

// PolicyOf returns the tenant's policy; ok is false when it has none.
func (x *Index) PolicyOf(ctx context.Context, tenant string) (p Policy, ok bool, err error) {
	err = x.db.QueryRowContext(ctx, "SELECT tenant, keep_days, set_by, set_ms FROM retention WHERE tenant = ?", tenant).
		Scan(&p.Tenant, &p.KeepDays, &p.SetBy, &p.SetMS)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	return p, err == nil, err
}

// Hold is a legal hold on one session.
type Hold struct {
	Tenant, ID, By, Reason string
	AtMS                   int64
}

// SetHold puts a session under a legal hold (replacing one it has).
func (x *Index) SetHold(ctx context.Context, h Hold) error {
	return x.replace(ctx, "holds", "tenant = ? AND id = ?", []any{h.Tenant, h.ID},
		"INSERT INTO holds (tenant, id, held_by, reason, held_ms) VALUES (?, ?, ?, ?, ?)", h.Tenant, h.ID, h.By, h.Reason, h.AtMS)
}

// ReleaseHold lifts a session's hold; it reports whether there was one.
func (x *Index) ReleaseHold(ctx context.Context, tenant, id string) (bool, error) {
	r, err := x.db.ExecContext(ctx, "DELETE FROM holds WHERE tenant = ? AND id = ?", tenant, id)
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n > 0, err
}

// Holds lists a tenant's holds.
func (x *Index) Holds(ctx context.Context, tenant string) ([]Hold, error) {
	rows, err := x.db.QueryContext(ctx, "SELECT tenant, id, held_by, reason, held_ms FROM holds WHERE tenant = ? ORDER BY id", tenant)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Hold
	for rows.Next() {
		var h Hold
		if err := rows.Scan(&h.Tenant, &h.ID, &h.By, &h.Reason, &h.AtMS); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

func (x *Index) replace(ctx context.Context, table, where string, key []any, insert string, args ...any) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE "+where, key...); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, insert, args...); err != nil {
		return err
	}
	return tx.Commit()
}

// Due returns the sealed, not yet tombstoned sessions of tenant whose
// last step is before cutoffMS, oldest first, at most limit, and the ids
// of the held ones among all that are due.
func (x *Index) Due(ctx context.Context, tenant string, cutoffMS int64, limit int) (due []*Session, held []string, err error) {
	rows, err := x.db.QueryContext(ctx, "SELECT "+sessionColumns+" FROM sessions "+x.hint("sessions", "sessions_by_end")+
		" WHERE tenant = ? AND tombstoned = 0 AND end_ms < ? AND verdict = ? ORDER BY end_ms, id LIMIT ?", tenant, cutoffMS, VerdictSealed, limit)
	if err != nil {
		return nil, nil, err
	}
	if due, err = scan(rows); err != nil {
		return nil, nil, err
	}
	hrows, err := x.db.QueryContext(ctx, "SELECT h.id FROM holds h JOIN sessions s ON s.tenant = h.tenant AND s.id = h.id"+
		" WHERE h.tenant = ? AND s.tombstoned = 0 AND s.end_ms < ? AND s.verdict = ? ORDER BY h.id", tenant, cutoffMS, VerdictSealed)
	if err != nil {
		return nil, nil, err
	}
	defer hrows.Close()
	for hrows.Next() {
		var id string
		if err := hrows.Scan(&id); err != nil {
			return nil, nil, err
		}
		held = append(held, id)
	}
	return due, held, hrows.Err()
}

// Retain runs the tenant's policy at nowMS: every sealed session whose
// last step is older than the policy keeps is handed to del (which
// replaces its record by a signed tombstone and removes its steps), then
// marked tombstoned. When any such session is under a legal hold it
// returns a *HeldError and deletes nothing. It returns the sessions
// deleted; on an error from del, those deleted before it.
func (x *Index) Retain(ctx context.Context, tenant string, nowMS int64, del func(*Session) error) ([]*Session, error) {
	p, ok, err := x.PolicyOf(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNoPolicy
	}
	// A policy stored by another writer is held to the same bound: kept
	// longer than MaxKeepDays is kept for ever, never a wrapped cutoff.
	keep := min(p.KeepDays, MaxKeepDays)
	cutoff := nowMS - keep*24*3600*1000
	_, held, err := x.Due(ctx, tenant, cutoff, 1)
	if err != nil {
		return nil, err
	}
	if len(held) > 0 {
		return nil, &HeldError{Tenant: tenant, IDs: held}
	}
	var done []*Session
	skipped := map[string]bool{} // del said ErrNotDue: the index has yet to learn what changed
	for {
		due, _, err := x.Due(ctx, tenant, cutoff, 500+len(skipped))
		if err != nil {
			return done, err
		}
		due = slices.DeleteFunc(due, func(s *Session) bool { return skipped[s.ID] })
		if len(due) == 0 {
			return done, nil
		}
		for _, s := range due {
			// A hold set since the check stops the run here.
			if h, err := x.held(ctx, tenant, s.ID); err != nil || h {
				if err == nil {
					err = &HeldError{Tenant: tenant, IDs: []string{s.ID}}
				}
				return done, err
			}
			if err := del(s); errors.Is(err, ErrNotDue) {
				skipped[s.ID] = true
				continue
			} else if err != nil {
				return done, fmt.Errorf("delete session %s: %w", s.ID, err)
			}
			if err := x.MarkTombstoned(ctx, tenant, s.ID); err != nil {
				return done, err
			}
			done = append(done, s)
		}
	}
}

func (x *Index) held(ctx context.Context, tenant, id string) (bool, error) {
	var n int
	err := x.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM holds WHERE tenant = ? AND id = ?", tenant, id).Scan(&n)
	return n > 0, err
}

// IsHeld reports whether a session is under a legal hold.
func (x *Index) IsHeld(ctx context.Context, tenant, id string) (bool, error) {
	return x.held(ctx, tenant, id)
}

// MarkTombstoned records that a session's record was replaced by a
// tombstone.
func (x *Index) MarkTombstoned(ctx context.Context, tenant, id string) error {
	_, err := x.db.ExecContext(ctx, "UPDATE sessions SET tombstoned = 1, verdict = ? WHERE tenant = ? AND id = ?", VerdictTombstoned, tenant, id)
	return err
}
