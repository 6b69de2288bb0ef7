package reviewcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/logbook-project/logbook/internal/review"
)

// SendOTLP sends a review's calls as spans to the OTLP/HTTP traces
// endpoint and its other steps as log records to the logs endpoint
// (either may be ""): otlpexport.Send, set by logbook-review-otlp. It is
// nil in logbook-review, which runs that executable for --otlp and
// --otlp-logs instead of linking the exporter (see the package comment).
var SendOTLP func(ctx context.Context, traces, logs string, r *review.Review) (spans, records int, err error)

// Helper is the executable that has SendOTLP, installed beside
// logbook-review (go install ./cmd/... builds both).
const Helper = "logbook-review-otlp"

// helperEnv is set in the helper's environment: a Helper without the
// exporter (logbook-review copied or linked under its name) sees it and
// refuses, instead of running itself again without end.
const helperEnv = "LOGBOOK_REVIEW_OTLP_HELPER"

// runHelper runs Helper with logbook-review's arguments, on the same
// streams, and returns its exit status: the same command, with the
// exporter.
func runHelper(args []string, stdout, stderr io.Writer) int {
	path, err := helperPath()
	if err != nil {
		fmt.Fprintf(stderr, "logbook-review: --otlp and --otlp-logs are sent by %s, found neither beside logbook-review nor on PATH (go install ./cmd/... installs it): %v\n", Helper, err)
		return 2
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(stderr, "logbook-review: %s: %v\n", Helper, err)
		return 2
	}
	return 0
}

// helperPath is Helper beside the running executable, else on PATH.
func helperPath() (string, error) {
	name := Helper
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return exec.LookPath(name)
}
