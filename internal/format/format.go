// Package format holds the constants of the agent-work/record@0 format
// that more than one package names: the version, the nesting limit, the
// step kinds, the refusal codes and the error that carries one. The format
// is described in docs/record-format.md; "spec §N" in a comment is its
// section N. It imports nothing of the project, so any package may
// import it; record-step links it on every tool call, so it stays small.
package format

// Constants of the format (spec §1, §4, §6).
const (
	// Version is a record's "version" member.
	Version = "agent-work/record@0"
	// Domain separates a record's signature from any other use of the key.
	Domain = "logbook/record@0/v1"
	// Journal names the in-progress file format in its header line.
	Journal = "logbook/in-progress@0"
	// MaxDepth is the deepest nesting of arrays and objects a record, a
	// step or a journal line may have (spec §1).
	MaxDepth = 64
)

// Step kinds (spec §4): what a step is about.
const (
	KindExec     = "exec"
	KindEdit     = "edit"
	KindRead     = "read"
	KindWrite    = "write"
	KindToolCall = "tool_call"
	KindClaim    = "claim"
	KindNote     = "note"
	KindGate     = "gate"
)

// Kinds lists the step kinds in the order of spec §4.
var Kinds = []string{KindExec, KindEdit, KindRead, KindWrite, KindToolCall, KindClaim, KindNote, KindGate}

// IsKind reports whether s is a step kind.
func IsKind(s string) bool {
	switch s {
	case KindExec, KindEdit, KindRead, KindWrite, KindToolCall, KindClaim, KindNote, KindGate:
		return true
	}
	return false
}

// Hex64 reports whether s is 64 lowercase hex digits: a SHA-256 as the
// format writes it (step hashes, record and key ids, body and policy
// digests).
func Hex64(s string) bool { return len(s) == 64 && LowerHex(s) }

// LowerHex reports whether s holds lowercase hex digits only.
func LowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Recorder is session.recorder (spec §4): the program that captured the
// steps, its version, and the SHA-256 (64 lowercase hex digits) of its
// executable file.
type Recorder struct {
	Name, Version, SHA256 string
}

// Check reports whether r has a name and a SHA-256 of 64 lowercase hex
// digits (spec §4).
func (r *Recorder) Check() error {
	if r.Name == "" || !Hex64(r.SHA256) {
		return &recorderError{r.Name}
	}
	return nil
}

type recorderError struct{ name string }

func (e *recorderError) Error() string {
	return "recorder \"" + e.name + "\": want a name and a SHA-256 of 64 lowercase hex digits"
}
