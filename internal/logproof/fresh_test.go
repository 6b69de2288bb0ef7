package logproof

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// batchedLog is a tiled log that integrates leaves in batches, as
// Tessera does: a tile is written at the sizes the log was published at,
// and each publication removes the partial tiles it made stale.
type batchedLog struct {
	tree    memTree
	entries [][]byte
	tiles   map[tlog.Tile][]byte
}

func (l *batchedLog) publish(t *testing.T, n int) {
	old := int64(len(l.entries))
	for i := 0; i < n; i++ {
		e := []byte(fmt.Sprintf("checkpoint %d\n", len(l.entries)))
		hs, err := tlog.StoredHashes(int64(len(l.entries)), e, &l.tree)
		if err != nil {
			t.Fatal(err)
		}
		l.tree.hashes = append(l.tree.hashes, hs...)
		l.entries = append(l.entries, e)
	}
	for _, tile := range tlog.NewTiles(8, old, int64(len(l.entries))) {
		data, err := tlog.ReadTileData(tile, &l.tree)
		if err != nil {
			t.Fatal(err)
		}
		for k := range l.tiles {
			if k.L == tile.L && k.N == tile.N {
				delete(l.tiles, k)
			}
		}
		l.tiles[tile] = data
	}
}

func (l *batchedLog) tile(_ context.Context, level, index uint64, p uint8) ([]byte, error) {
	w := int(p)
	if w == 0 {
		w = 256
	}
	b, ok := l.tiles[tlog.Tile{H: 8, L: int(level), N: int64(index), W: w}]
	if !ok {
		return nil, fmt.Errorf("tile %d/%d.p/%d: %w", level, index, p, os.ErrNotExist)
	}
	return b, nil
}

func (l *batchedLog) bundle(_ context.Context, index uint64, p uint8) ([]byte, error) {
	w := uint64(p)
	if w == 0 {
		w = 256
	}
	if (index+1)*256 > uint64(len(l.entries)) && index*256+w != uint64(len(l.entries)) {
		return nil, fmt.Errorf("bundle %d.p/%d: %w", index, p, os.ErrNotExist)
	}
	var out []byte
	for _, e := range l.entries[index*256 : index*256+w] {
		out = binary.BigEndian.AppendUint16(out, uint16(len(e)))
		out = append(out, e...)
	}
	return out, nil
}

// A record's leaf in the middle of a batch: the log never wrote a tile
// at the record's size, and the leaves after it are still read (the
// verifier asked for the partial tile at the record's size and failed
// half the time against a log that gathers leaves).
func TestLaterLeavesBatched(t *testing.T) {
	f := newFixture(t)
	pol, err := ParsePolicy([]byte("log " + f.logV + "\nquorum none\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := &batchedLog{tiles: map[tlog.Tile][]byte{}}
	for _, n := range []int{3, 21, 300, 9, 260} {
		l.publish(t, n)
	}
	size := int64(len(l.entries))
	root, err := tlog.TreeHash(size, &l.tree)
	if err != nil {
		t.Fatal(err)
	}
	latest := f.checkpoint(t, size, root, f.logS)
	for _, from := range []uint64{1, 7, 24, 100, 256, 324, 330, 333, 500, uint64(size)} {
		tr, leaves, err := LaterLeaves(context.Background(), pol, latest, from, l.tile, l.bundle)
		if err != nil {
			t.Fatalf("from %d: %v", from, err)
		}
		if tr.Size != size || len(leaves) != int(uint64(size)-from) {
			t.Fatalf("from %d: size %d, %d leaves", from, tr.Size, len(leaves))
		}
		if from < uint64(size) && string(leaves[0]) != string(l.entries[from]) {
			t.Fatalf("from %d: first leaf %q", from, leaves[0])
		}
	}
	// A tile changed by the log copy is still caught.
	for k, v := range l.tiles {
		if k.L == 0 && k.N == 1 {
			c := append([]byte(nil), v...)
			c[40] ^= 1
			l.tiles[k] = c
		}
	}
	if _, _, err := LaterLeaves(context.Background(), pol, latest, 300, l.tile, l.bundle); err == nil {
		t.Fatal("a changed tile passed")
	}
}
