package decider

// Why a call did not go through the decider. Each is reported on stderr
// and in errors.log by its code (except ErrAbsent, the normal first call),
// and the call then goes to the exec'd logbook-policy hook: no call is
// left ungated (docs/policy.md §7).
const (
	// ErrAbsent: no decider listens for this key (none started yet, or it
	// went idle, or the policy or the binary changed): one is started.
	ErrAbsent = "DECIDER_ABSENT"
	// ErrInsecure: the socket's directory is not the user's own with mode
	// 0700, or what answers is another user's process: not used.
	ErrInsecure = "DECIDER_INSECURE"
	// ErrDied: the decider took the request and then closed, reset or
	// timed out before a whole answer came.
	ErrDied = "DECIDER_DIED"
	// ErrGarbage: what came back (or was sent) is not a message of the
	// protocol.
	ErrGarbage = "DECIDER_GARBAGE"
	// ErrWrongKey: the decider serves another policy, trusted keys or
	// binary than the caller computed.
	ErrWrongKey = "DECIDER_WRONG_KEY"
	// ErrTooLarge: the payload is over MaxPayload: not sent.
	ErrTooLarge = "DECIDER_TOO_LARGE"
	// ErrUnsupported: this system cannot tell who is at the other end of
	// a Unix socket (Windows), so there is no decider: `logbook-policy
	// serve` refuses to start and record-step sends every gated call to
	// the exec'd hook, without trying (Supported is false).
	ErrUnsupported = "DECIDER_UNSUPPORTED"
)

// Error is a named failure of the decider's path.
type Error struct {
	Code   string
	Detail string
}

func (e *Error) Error() string { return e.Code + ": " + e.Detail }

// Code is err's code when it is an *Error, else "".
func Code(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

// Unsupported is the ErrUnsupported error.
func Unsupported() error {
	return &Error{Code: ErrUnsupported, Detail: "the policy decider needs Unix sockets that tell who is at the other end (Linux, macOS): each gated call runs logbook-policy hook (docs/platforms.md)"}
}
