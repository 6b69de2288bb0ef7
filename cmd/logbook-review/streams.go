package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/logbook-project/logbook/internal/otlpexport"
	"github.com/logbook-project/logbook/internal/review"
)

// streams writes the steps as JSON Lines (--jsonl) and sends the calls as
// OpenTelemetry spans (--otlp). A refused record is still sent, marked
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
	if o.otlp != "" {
		n, err := otlpexport.Export(context.Background(), o.otlp, r)
		if err != nil {
			return fmt.Errorf("--otlp %s: %v", o.otlp, err)
		}
		if o.jsonl != "-" {
			fmt.Fprintf(stdout, "sent %d spans (%d calls) of %s to %s\n", n, r.Summary.Calls, path, o.otlp)
		}
	}
	return nil
}
