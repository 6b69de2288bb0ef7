package translog_test

import (
	"log/slog"
	"os"
	"testing"

	"github.com/logbook-project/logbook/internal/translog"
)

func TestMain(m *testing.M) {
	translog.SetLogger(slog.New(slog.DiscardHandler)) // Tessera's chatter stays out of test output
	os.Exit(m.Run())
}
