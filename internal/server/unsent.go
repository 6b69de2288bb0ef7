package server

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// UnsentEvent is the data.event of the note a server appends when a hook
// reports events it could not send in X-Logbook-Unsent: record-step
// --server before it numbered events (seq.go) counted them in one file
// for every session and sent the count with the next event. A hook of
// that version still sends it. internal/gaps counts it.
const UnsentEvent = "logbook.unsent"

// maxUnsent bounds the count a header may claim.
const maxUnsent = 1 << 30

// unsentCount reads X-Logbook-Unsent: 0 when absent; an error when it is
// not a count (digits, 1 to maxUnsent).
func unsentCount(r *http.Request) (int64, error) {
	h := r.Header.Get("X-Logbook-Unsent")
	if h == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(h, 10, 64)
	if err != nil || n < 1 || n > maxUnsent || h[0] == '+' || h[0] == '0' {
		return 0, fmt.Errorf("X-Logbook-Unsent: want a count from 1 to %d", maxUnsent)
	}
	return n, nil
}

// unsentNote is the note step naming the events the hook did not send.
func unsentNote(n int64, at string) chain.Step {
	return chain.Step{
		At:      at,
		Kind:    "note",
		Summary: fmt.Sprintf("%d event(s) before this one never reached the server (the hook could not send them: server down, or its answer refused)", n),
		Data: strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str(UnsentEvent)},
			strictjson.Member{Key: "count", Value: strictjson.Int(n)},
		),
	}
}
