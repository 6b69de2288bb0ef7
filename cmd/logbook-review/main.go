// Command logbook-review reads a record, or a session still in progress,
// as a reviewer wants it (internal/reviewcmd has the command, docs/review.md
// the guide). For --otlp and --otlp-logs it runs logbook-review-otlp, which
// links the OpenTelemetry exporter that this executable leaves out.
package main

import (
	"os"

	"github.com/logbook-project/logbook/internal/reviewcmd"
)

func main() {
	os.Exit(reviewcmd.Run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}
