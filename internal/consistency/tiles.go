package consistency

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"

	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
)

// maxTile is the largest hash tile: 256 hashes of 32 bytes. The tiles
// come from the log being audited (its URL, or a copy of its directory):
// a body or file that never ends must cost no more than a tile.
const maxTile = 256 * 32

// tileClient is an HTTP client whose response bodies fail past maxTile.
var tileClient = &http.Client{Transport: limitTransport{http.DefaultTransport, maxTile}}

// maxBundle is the largest entry bundle read: 256 leaves, each a session
// checkpoint note of well under 16 KiB.
const maxBundle = 256 << 14

// bundleClient reads the log's checkpoint, tiles and entry bundles (the
// freshness check), each at most maxBundle bytes.
var bundleClient = &http.Client{Transport: limitTransport{http.DefaultTransport, maxBundle}}

type limitTransport struct {
	next  http.RoundTripper
	limit int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: t.limit + 1, limit: t.limit}
	}
	return resp, err
}

// limitedBody reads at most maxTile bytes, then fails.
type limitedBody struct {
	io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left <= 0 {
		return n, fmt.Errorf("a tile or bundle of more than %d bytes", b.limit)
	}
	return n, err
}

// fileTiles reads tiles from a copy of the log's directory, refusing any
// tile path that is not a regular file of at most maxTile bytes (a
// symlink to /dev/zero would otherwise be read without end).
func fileTiles(root string) client.TileFetcherFunc {
	read := client.FileFetcher{Root: root}.ReadTile
	return func(ctx context.Context, l, i uint64, p uint8) ([]byte, error) {
		for _, w := range []uint8{p, 0} {
			name := path.Join(root, layout.TilePath(l, i, w))
			st, err := os.Stat(name)
			if err != nil {
				continue // the fetcher names what is missing
			}
			if !st.Mode().IsRegular() || st.Size() > maxTile {
				return nil, fmt.Errorf("%s: not a tile (a regular file of at most %d bytes)", name, maxTile)
			}
		}
		return read(ctx, l, i, p)
	}
}

// fileBundles reads entry bundles from a copy of the log's directory, with
// the same care as fileTiles.
func fileBundles(root string) client.EntryBundleFetcherFunc {
	read := client.FileFetcher{Root: root}.ReadEntryBundle
	return func(ctx context.Context, i uint64, p uint8) ([]byte, error) {
		for _, w := range []uint8{p, 0} {
			name := path.Join(root, layout.EntriesPath(i, w))
			st, err := os.Stat(name)
			if err != nil {
				continue
			}
			if !st.Mode().IsRegular() || st.Size() > maxBundle {
				return nil, fmt.Errorf("%s: not an entry bundle (a regular file of at most %d bytes)", name, maxBundle)
			}
		}
		return read(ctx, i, p)
	}
}
