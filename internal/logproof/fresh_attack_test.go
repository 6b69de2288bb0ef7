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

// Hostile tiles at tile edges: every answer is either refused or gives
// the log's own leaves; none panics.
func TestLaterLeavesHostileTiles(t *testing.T) {
	f := newFixture(t)
	pol, err := ParsePolicy([]byte("log " + f.logV + "\nquorum none\n"))
	if err != nil {
		t.Fatal(err)
	}
	muts := map[string]func(b []byte, level, index uint64, p uint8, l *batchedLog) ([]byte, error){
		"short32": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			if len(b) >= 32 {
				return b[:len(b)-32], nil
			}
			return b, nil
		},
		"short1": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			if len(b) >= 1 {
				return b[:len(b)-1], nil
			}
			return b, nil
		},
		"long32": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			return append(append([]byte(nil), b...), make([]byte, 32)...), nil
		},
		"long8k": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			return append(append([]byte(nil), b...), make([]byte, 8192)...), nil
		},
		"long5": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			return append(append([]byte(nil), b...), 1, 2, 3, 4, 5), nil
		},
		"empty": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) { return nil, nil },
		"flip": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			c := append([]byte(nil), b...)
			if len(c) > 0 {
				c[len(c)-1] ^= 1
			}
			return c, nil
		},
		"zeros": func(b []byte, _, _ uint64, _ uint8, _ *batchedLog) ([]byte, error) {
			return make([]byte, len(b)), nil
		},
	}
	for _, batches := range [][]int{{255}, {256}, {257}, {1, 254, 1, 256}, {65536}, {65535, 2}, {300, 65236, 1}} {
		l := &batchedLog{tiles: map[tlog.Tile][]byte{}}
		for _, n := range batches {
			l.publish(t, n)
		}
		size := uint64(len(l.entries))
		root, err := tlog.TreeHash(int64(size), &l.tree)
		if err != nil {
			t.Fatal(err)
		}
		latest := f.checkpoint(t, int64(size), root, f.logS)
		for _, from := range []uint64{0, 1, 255, 256, 257, size - 257, size - 256, size - 255, size - 1, size} {
			if from > size {
				continue
			}
			for name, m := range muts {
				for target := 0; target < 4; target++ {
					calls := 0
					tiles := func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
						b, err := l.tile(ctx, level, index, p)
						if err != nil {
							return b, err
						}
						calls++
						if calls%4 == target || target == 3 {
							return m(b, level, index, p, l)
						}
						return b, nil
					}
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Fatalf("%v from %d %s/%d: panic %v", batches, from, name, target, r)
							}
						}()
						_, leaves, err := LaterLeaves(context.Background(), pol, latest, from, tiles, l.bundle)
						if err != nil {
							return
						}
						if uint64(len(leaves)) != size-from {
							t.Fatalf("%v from %d %s/%d: %d leaves", batches, from, name, target, len(leaves))
						}
						for i, e := range leaves {
							if string(e) != string(l.entries[from+uint64(i)]) {
								t.Fatalf("%v from %d %s/%d: leaf %d %q", batches, from, name, target, from+uint64(i), e)
							}
						}
					}()
				}
			}
		}
	}
}

// Huge sizes: a checkpoint of 2^62 leaves, a record near its end, and a
// log that answers any tile with hashes of any width: refused, no panic.
func TestLaterLeavesHugeSize(t *testing.T) {
	f := newFixture(t)
	pol, err := ParsePolicy([]byte("log " + f.logV + "\nquorum none\n"))
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 62
	latest := f.checkpoint(t, size, tlog.Hash{1}, f.logS)
	for _, width := range []int{0, 1, 255, 256, 257, 1000} {
		tiles := func(_ context.Context, level, index uint64, p uint8) ([]byte, error) {
			return make([]byte, 32*width), nil
		}
		bundles := func(_ context.Context, index uint64, p uint8) ([]byte, error) { return nil, nil }
		for _, from := range []uint64{size, size - 1, size - 256, size - 257, size - 1<<20, size - 1<<20 - 1, 0, 1} {
			tr, leaves, err := LaterLeaves(context.Background(), pol, latest, from, tiles, bundles)
			if from == size {
				if err != nil || len(leaves) != 0 || tr.Size != size {
					t.Fatalf("from == size: %v %d", err, len(leaves))
				}
				continue
			}
			if err == nil {
				t.Fatalf("width %d from %d: %d leaves taken", width, from, len(leaves))
			}
		}
	}
}
