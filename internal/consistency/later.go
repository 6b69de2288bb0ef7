package consistency

import (
	"context"
	"net/url"
	"path/filepath"

	"github.com/transparency-dev/tessera/client"

	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// Later reads, from the log at loc (an http(s) URL of its tlog-tiles or a
// copy of its directory; token as in Tiles), the leaves from index from
// to the log's latest checkpoint, each checked to be the log's
// (logproof.LaterLeaves): logbook-verify's freshness check. Every read is
// bounded (a checkpoint or entry bundle by maxBundle, a tile by maxTile).
func Later(ctx context.Context, pol *logproof.Policy, from uint64, loc, token string) ([][]byte, error) {
	var tiles client.TileFetcherFunc
	var bundles client.EntryBundleFetcherFunc
	var latest func(context.Context) ([]byte, error)
	if u, err := url.Parse(loc); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		f, err := client.NewHTTPFetcher(u, bundleClient)
		if err != nil {
			return nil, err
		}
		if token != "" {
			f.SetAuthorizationHeader("Bearer " + token)
		}
		tiles, bundles, latest = f.ReadTile, f.ReadEntryBundle, f.ReadCheckpoint
	} else {
		tiles, bundles = fileTiles(loc), fileBundles(loc)
		latest = func(context.Context) ([]byte, error) {
			return readlimit.Small(filepath.Join(loc, "checkpoint"), maxBundle)
		}
	}
	cp, err := latest(ctx)
	if err != nil {
		return nil, err
	}
	_, leaves, err := logproof.LaterLeaves(ctx, pol, cp, from, tiles, bundles)
	return leaves, err
}
