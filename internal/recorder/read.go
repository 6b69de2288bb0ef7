package recorder

import (
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/bigbuf"
)

// MaxPayload is the largest hook payload recorded, in bytes: the same as
// logbook-server's default --max-hook-body, so that an event the server
// would refuse is refused here too. Harnesses cut what they hand a hook
// well below it (Claude Code's tool output is capped at tens of KB).
const MaxPayload = 32 << 20

// ReadPayload reads a hook's payload from r: at most MaxPayload bytes and
// one more, so that a payload over the limit (a runaway pipe, gigabytes
// of output) is refused as PAYLOAD_TOO_LARGE having cost about the limit
// in memory, never its own size. A 400 MB payload used to be read whole
// first: 787 MB peak.
func ReadPayload(r io.Reader) ([]byte, error) {
	b, over, err := bigbuf.ReadStreamLimit(r, MaxPayload)
	if err != nil {
		return nil, err
	}
	if over {
		return nil, &Refusal{Reason: PayloadTooLarge, Err: fmt.Errorf("over the limit of %d bytes (%d MiB); not read further", MaxPayload, MaxPayload>>20)}
	}
	return b, nil
}
