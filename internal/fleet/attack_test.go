package fleet_test

import (
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
)

// TestRedeemRace: sixteen redemptions of one code at once make one
// credential; every other is ErrCodeUsed.
func TestRedeemRace(t *testing.T) {
	s, err := fleet.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	code, err := s.Enroll("acme", "dev1", nil, time.Hour, t0, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = s.Redeem(code, t0, rand.Reader)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, fleet.ErrCodeUsed):
			t.Errorf("a losing redemption: %v", err)
		}
	}
	if list, _ := s.List(); won != 1 || len(list) != 1 {
		t.Errorf("%d redemptions won, %d credentials", won, len(list))
	}
}

// TestHostileSecrets: a code or credential of the right prefix but any
// other shape (huge, a path, NULs, padding, the other prefix) is refused
// as unknown before any file is looked at.
func TestHostileSecrets(t *testing.T) {
	s, err := fleet.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"", "lbk_", "lbe_", "lbk_" + strings.Repeat("A", 1<<20), "lbk_../../../../etc/passwd", "lbk_" + strings.Repeat("A", 42) + "=",
		"lbk_" + strings.Repeat("\x00", 43), "lbe_" + strings.Repeat("A", 43), "LBK_" + strings.Repeat("A", 43), "lbk_" + strings.Repeat("A", 43) + "\n"} {
		if _, err := s.Lookup(v); !errors.Is(err, fleet.ErrCredUnknown) {
			t.Errorf("Lookup(%.40q): %v", v, err)
		}
		code := strings.Replace(v, "lbk_", "lbe_", 1)
		if strings.HasPrefix(v, "lbe_") {
			code = "lbk_" + v[4:]
		}
		if _, _, err := s.Redeem(code, t0, rand.Reader); !errors.Is(err, fleet.ErrCodeUnknown) {
			t.Errorf("Redeem(%.40q): %v", code, err)
		}
	}
}

// TestTenantFitsTheIndex: the index keeps a tenant in 64 bytes; a
// longer one enrolled left every session of the tenant out of its
// search and coverage.
func TestTenantFitsTheIndex(t *testing.T) {
	if _, err := fleet.CheckEnroll(strings.Repeat("t", 65), "dev1", nil, time.Hour); !errors.Is(err, fleet.ErrName) {
		t.Errorf("a 65-byte tenant: %v", err)
	}
	if _, err := fleet.CheckEnroll(strings.Repeat("t", 64), strings.Repeat("d", 128), nil, time.Hour); err != nil {
		t.Errorf("the longest: %v", err)
	}
}
