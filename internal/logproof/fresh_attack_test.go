package logproof

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

func attackLog(t *testing.T) (*batchedLog, []byte, *Policy) {
	t.Helper()
	f := newFixture(t)
	pol, err := ParsePolicy([]byte("log " + f.logV + "\nquorum none\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := &batchedLog{tiles: map[tlog.Tile][]byte{}}
	for _, n := range []int{3, 300, 9, 260} {
		l.publish(t, n)
	}
	size := int64(len(l.entries))
	root, err := tlog.TreeHash(size, &l.tree)
	if err != nil {
		t.Fatal(err)
	}
	return l, f.checkpoint(t, size, root, f.logS), pol
}

// An empty entry bundle where a bundle begins (a log copy's empty file,
// or a server answering nothing) must be refused: LaterLeaves fetched the
// same bundle again and again, never returning.
func TestLaterLeavesEmptyBundle(t *testing.T) {
	l, latest, pol := attackLog(t)
	for _, from := range []uint64{0, 256, 300} {
		calls := 0
		bundles := func(ctx context.Context, index uint64, p uint8) ([]byte, error) {
			calls++
			if calls > 50 {
				return nil, errors.New("fetched too often")
			}
			if index == 1 {
				return nil, nil
			}
			return l.bundle(ctx, index, p)
		}
		_, _, err := LaterLeaves(context.Background(), pol, latest, from, l.tile, bundles)
		if err == nil {
			t.Fatalf("from %d: an empty bundle passed", from)
		}
		if calls > 4 {
			t.Fatalf("from %d: %d bundle fetches for 3 bundles (%v)", from, calls, err)
		}
	}
}
