package translog

import (
	"context"
	"errors"
	"net/http"

	"github.com/transparency-dev/tessera"
)

// ErrNoPOSIXLog: Tessera's POSIX-file storage locks and syncs with calls
// Windows does not have (fcntl locks, O_DIRECTORY), so it is not built
// there: a logbook-server on Windows keeps its log in MySQL or has none.
var ErrNoPOSIXLog = errors.New("the posix log is not offered on Windows: use --log mysql --log-dsn DSN, or --log none (docs/platforms.md)")

func posixDriver(ctx context.Context, dir string, client *http.Client) (tessera.Driver, error) {
	return nil, ErrNoPOSIXLog
}
