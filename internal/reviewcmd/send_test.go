package reviewcmd

import (
	"context"

	"github.com/logbook-project/logbook/internal/otlpexport"
	"github.com/logbook-project/logbook/internal/review"
)

// The tests run the command as logbook-review-otlp runs it: with the
// exporter (logbook-review's hand-over to it is e2e's TestReviewOTLPHelper).
func init() {
	SendOTLP = func(ctx context.Context, traces, logs string, r *review.Review) (int, int, error) {
		sent, err := otlpexport.Send(ctx, otlpexport.Endpoints{Traces: traces, Logs: logs}, r)
		return sent.Spans, sent.Logs, err
	}
}
