// Command logbook-review-otlp is logbook-review with the OpenTelemetry
// exporter linked in: logbook-review runs it, with its own arguments, for
// --otlp and --otlp-logs (docs/review.md). Kept apart because the
// exporter's packages fault in 6.5 MiB of the executable at every start,
// used or not (issue 21).
package main

import (
	"context"
	"os"

	"github.com/logbook-project/logbook/internal/otlpexport"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/reviewcmd"
)

func main() {
	reviewcmd.SendOTLP = send
	os.Exit(reviewcmd.Run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

func send(ctx context.Context, traces, logs string, r *review.Review) (int, int, error) {
	sent, err := otlpexport.Send(ctx, otlpexport.Endpoints{Traces: traces, Logs: logs}, r)
	return sent.Spans, sent.Logs, err
}
