package bundlecheck

import (
	"bytes"
	"testing"

	"github.com/logbook-project/logbook/internal/bundle"
)

// TestOpenRefuses: what is not a bundle, or names no readable signer key,
// is refused as BUNDLE_INVALID with a detail, and printed as any refusal.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "{}", "not json", `{"format":"logbook/bundle@0"}`} {
		b, out := Open([]byte(in))
		if b != nil || out == nil || out.Result.Code != bundle.Invalid || out.Result.Detail == "" {
			t.Errorf("%q: %+v %+v", in, b, out)
			continue
		}
		var w bytes.Buffer
		Result{Outcome: *out}.Write(&w, false)
		if !bytes.HasPrefix(w.Bytes(), []byte("REFUSED "+string(bundle.Invalid))) {
			t.Errorf("%q printed %q", in, w.String())
		}
	}
}
