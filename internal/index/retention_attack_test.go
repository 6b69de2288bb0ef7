package index

import (
	"context"
	"errors"
	"testing"
)

// TestRetentionKeepDaysOverflow: a policy of 213,492,408,260 days (which
// reads as "keep for ever") made the run's cutoff, now - days x 86.4e6
// ms, wrap past int64 into the future, and the run deleted every sealed
// session. SetPolicy refuses a keep past MaxKeepDays; a policy stored
// before that (or by another writer) deletes nothing it should keep.
func TestRetentionKeepDaysOverflow(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, fixture(5)...); err != nil {
			t.Fatal(err)
		}
		const wraps = 213492408260
		if err := x.SetPolicy(ctx, Policy{Tenant: "acme", KeepDays: wraps, SetBy: "admin"}); !errors.Is(err, ErrBadQuery) {
			t.Errorf("SetPolicy(%d days): %v", int64(wraps), err)
		}
		if err := x.SetPolicy(ctx, Policy{Tenant: "acme", KeepDays: MaxKeepDays, SetBy: "admin"}); err != nil {
			t.Fatal(err)
		}
		if _, err := x.db.ExecContext(ctx, "UPDATE retention SET keep_days = ? WHERE tenant = ?", int64(wraps), "acme"); err != nil {
			t.Fatal(err)
		}
		var deleted []string
		if _, err := x.Retain(ctx, "acme", ms("2026-01-31T00:00:00Z"), func(s *Session) error { deleted = append(deleted, s.ID); return nil }); err != nil || len(deleted) != 0 {
			t.Errorf("keep %d days: deleted %v (%v)", int64(wraps), deleted, err)
		}
	})
}
