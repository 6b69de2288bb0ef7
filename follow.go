package logbook

import (
	"context"
	"io"
	"time"

	"github.com/logbook-project/logbook/internal/follow"
)

// FollowOptions say what to follow and where to report.
type FollowOptions struct {
	// Session is the session to follow; "" follows every journal in the
	// directory, including ones created later.
	Session string
	// Out receives one line per step as it lands, and per notice.
	Out io.Writer
}

// Follow watches the journals in dir while an agent works, until ctx is
// done (it returns nil). Every new line must extend the chain, and bytes
// once seen must never change: an edit, a removal, a reorder or a
// replaced file ends the watch with an *Alarm. A torn last line (an
// append in flight) is not an alarm.
func Follow(ctx context.Context, dir string, opt FollowOptions) error {
	out := opt.Out
	if out == nil {
		out = io.Discard
	}
	// Besides the file system's events, a full rescan every few seconds
	// catches what a lost event would hide.
	return follow.Run(ctx, follow.Options{Dir: dir, Session: opt.Session, Out: out, Rescan: 5 * time.Second})
}
