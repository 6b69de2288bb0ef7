package serve

import (
	"os"

	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
)

// lockKey: the decider is not offered on Windows (decider.Supported);
// Serve stops at decider.Secure before this.
func lockKey(path string) (*os.File, error) { return nil, decider.Unsupported() }

func cpuTime() uint64 { return 0 }
