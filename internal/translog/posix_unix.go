//go:build unix

package translog

import (
	"context"
	"net/http"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
)

// posixDriver is Tessera's POSIX-file storage in dir.
func posixDriver(ctx context.Context, dir string, client *http.Client) (tessera.Driver, error) {
	return posix.New(ctx, posix.Config{Path: dir, HTTPClient: client})
}
