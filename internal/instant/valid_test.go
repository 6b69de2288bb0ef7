package instant

import (
	"fmt"
	"testing"
	"time"
)

// TestValidMatchesTimeParse: every day number 00-39 of every month 00-13,
// in years around each leap-year rule, is valid exactly when time.Parse
// takes it (Valid checked the day against the month with time.Parse
// before; it now counts the days itself).
func TestValidMatchesTimeParse(t *testing.T) {
	t.Parallel()
	years := []int{0, 1, 4, 100, 200, 300, 399, 400, 1600, 1700, 1900, 1999, 2000, 2024, 2025, 2026, 2100, 2400, 9996, 9999}
	n := 0
	for _, y := range years {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 39; d++ {
				s := fmt.Sprintf("%04d-%02d-%02dT23:59:59.5Z", y, m, d)
				_, err := time.Parse("2006-01-02T15:04:05", s[:19])
				if got, want := Valid(s), err == nil; got != want {
					t.Fatalf("%s: Valid %v, time.Parse %v", s, got, want)
				}
				n++
			}
		}
	}
	if n != len(years)*14*40 {
		t.Fatal("not every date was tried")
	}
}
