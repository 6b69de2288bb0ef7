package reviewcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/review"
)

// streams writes the steps as JSON Lines (--jsonl) and sends the calls as
// OpenTelemetry spans (--otlp) and the other steps as OpenTelemetry log
// records (--otlp-logs). A refused record is still sent, marked
// (logbook.verified false, the code, an error status on the root span):
// a collector should see a tampered session, not miss it.
func streams(path string, data []byte, inProgress bool, r *review.Review, o options, stdout io.Writer) error {
	if o.jsonl != "" {
		var w io.Writer = stdout
		if o.jsonl != "-" {
			f, err := os.Create(o.jsonl)
			if err != nil {
				return err
			}
			defer f.Close()
			w = f
		}
		if err := review.WriteJSONL(w, data, inProgress, r.Verdict.RecordID, r.Session.ID); err != nil {
			return fmt.Errorf("--jsonl: %v", err)
		}
		if f, ok := w.(*os.File); ok && f != os.Stdout {
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
	if o.otlp != "" || o.otlpLogs != "" {
		spans, records, err := SendOTLP(context.Background(), o.otlp, o.otlpLogs, r)
		if err != nil {
			flag, url := "--otlp", o.otlp
			if o.otlp == "" || strings.HasPrefix(err.Error(), "logs: ") {
				flag, url = "--otlp-logs", o.otlpLogs
			}
			return fmt.Errorf("%s %s: %v", flag, url, strings.TrimPrefix(err.Error(), "logs: "))
		}
		if o.jsonl != "-" {
			if o.otlp != "" {
				fmt.Fprintf(stdout, "sent %d spans (%d calls) of %s to %s\n", spans, r.Summary.Calls, path, o.otlp)
			}
			if o.otlpLogs != "" {
				fmt.Fprintf(stdout, "sent %d log records (the steps that are not calls) of %s to %s\n", records, path, o.otlpLogs)
			}
		}
	}
	return nil
}
