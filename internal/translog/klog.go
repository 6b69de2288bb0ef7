package translog

import (
	"log/slog"

	"k8s.io/klog/v2"
)

// SetLogger sends Tessera's logs (klog) to l, so that a server's stderr
// stays one structured format. klog is process-wide: call it once, before
// Open.
func SetLogger(l *slog.Logger) { klog.SetSlogLogger(l) }
