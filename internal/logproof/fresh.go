package logproof

import (
	"bytes"
	"context"
	"fmt"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/tlog"
)

// Freshness. A record's proof of logging shows that its final checkpoint
// is in the log; it cannot show that it is the session's last one: an
// agent that kept an early SessionEnd's record and proof can hand those
// over after the server recorded much more. The log holds a leaf for
// every checkpoint the server signs, so the leaves after the record's own
// say whether the session went on: LaterLeaves reads them, each checked
// to be the log's, and the verifier refuses the record (TRUNCATED) when
// one is a later checkpoint of its session.

// MaxLaterLeaves bounds the leaves read after a record's own: the log's
// growth since it was sealed (each leaf is a checkpoint note of a few
// hundred bytes, so this is at most a few hundred MB read, once).
const MaxLaterLeaves = 1 << 20

// LaterLeaves returns the leaves at indexes from to the end of the tree of
// latest, a log checkpoint that a log key of the policy signed. The leaf
// hashes read from the tiles, with the range before from, must rebuild
// latest's root, and each entry must hash to its leaf: a log copy or
// server that left a leaf out, or changed one, is an error. The tree
// returned is latest's.
func LaterLeaves(ctx context.Context, pol *Policy, latest []byte, from uint64,
	tiles client.TileFetcherFunc, bundles client.EntryBundleFetcherFunc) (Tree, [][]byte, error) {
	t, err := ParseTree(latest)
	if err != nil {
		return t, nil, fmt.Errorf("the log's latest checkpoint: %v", err)
	}
	if err := pol.OpenLog(latest, t.Origin); err != nil {
		return t, nil, err
	}
	size := uint64(t.Size)
	if from > size {
		return t, nil, fmt.Errorf("the log's latest checkpoint (size %d) is older than the record's proof (leaf %d)", size, from-1)
	}
	if size-from > MaxLaterLeaves {
		return t, nil, fmt.Errorf("the log grew by %d leaves since the record's: more than %d to read", size-from, MaxLaterLeaves)
	}
	if from == size {
		return t, nil, nil
	}
	left, err := client.FetchRangeNodes(ctx, from, atSize(tiles, size))
	if err != nil {
		return t, nil, err
	}
	hashes, err := client.FetchLeafHashes(ctx, tiles, from, size-from, size)
	if err != nil {
		return t, nil, err
	}
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r, err := rf.NewRange(0, from, left)
	if err != nil {
		return t, nil, err
	}
	for _, h := range hashes {
		if err := r.Append(h, nil); err != nil {
			return t, nil, err
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		return t, nil, err
	}
	if !bytes.Equal(root, t.Root[:]) {
		return t, nil, fmt.Errorf("the log's leaves %d to %d do not rebuild its checkpoint's root", from, size-1)
	}
	out := make([][]byte, 0, size-from)
	for i := from; i < size; {
		start := i
		b, err := client.GetEntryBundle(ctx, bundles, i/256, size)
		if err != nil {
			return t, nil, err
		}
		for j := i % 256; j < uint64(len(b.Entries)) && i < size; j, i = j+1, i+1 {
			if h := tlog.RecordHash(b.Entries[j]); !bytes.Equal(h[:], hashes[i-from]) {
				return t, nil, fmt.Errorf("the log's entry %d does not hash to its leaf", i)
			}
			out = append(out, b.Entries[j])
		}
		if i < size && (i%256 != 0 || i == start) {
			return t, nil, fmt.Errorf("the log's entry bundle %d is short", i/256)
		}
	}
	return t, out, nil
}

// atSize reads the tiles of the tree of size (the log's latest
// checkpoint) for a reader that asks for them at a smaller size: the
// nodes left of a record's leaf are asked for at the record's size, and
// a log that integrates leaves in batches never wrote a partial tile of
// that width (a tile is written at the sizes the log was published at,
// and a live log removes the old partial ones). The first p hashes of a
// tile are the same at every size that holds them, so the wider tile's
// first p serve.
func atSize(tiles client.TileFetcherFunc, size uint64) client.TileFetcherFunc {
	return func(ctx context.Context, level, index uint64, p uint8) ([]byte, error) {
		w := layout.PartialTileSize(level, index, size)
		b, err := tiles(ctx, level, index, w)
		if err != nil || p == 0 {
			if err == nil && w != 0 {
				return nil, fmt.Errorf("tile %d/%d: full at the smaller size, partial (%d) at the log's %d", level, index, w, size)
			}
			return b, err
		}
		if w != 0 && p > w {
			return nil, fmt.Errorf("tile %d/%d: %d hashes asked of the log's %d at size %d", level, index, p, w, size)
		}
		if len(b) < int(p)*32 {
			return nil, fmt.Errorf("tile %d/%d: %d bytes, want at least %d", level, index, len(b), int(p)*32)
		}
		return b[:int(p)*32], nil
	}
}
