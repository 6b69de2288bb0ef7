package signed

import (
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/edsign"
)

// AssembleTo is AssembleWith for steps too large to hold in memory: the
// record's bytes (the same bytes AssembleWith returns) are written to out,
// and neither they nor the signed bytes are ever held. steps writes the
// canonical steps array ("[step,…]", as journal.Stream writes it) to w;
// it is called three times, twice to sign (Ed25519 hashes the message
// twice; edsign.SignStream) and once for the record, and must write the
// same bytes each time: a change between the signing writings is an error
// and nothing is written to out.
func AssembleTo(out io.Writer, sess Session, steps func(w io.Writer) error, count int, tip string, priv []byte, x Extras) error {
	a, err := prepare(sess, count, tip, priv, x)
	if err != nil {
		return err
	}
	envPrefix, envSuffix, err := Envelope(a.parts(nil))
	if err != nil {
		return err
	}
	sig, err := edsign.SignStream(priv, func(w io.Writer) error {
		if _, err := w.Write(envPrefix); err != nil {
			return err
		}
		if err := steps(w); err != nil {
			return err
		}
		_, err := w.Write(envSuffix)
		return err
	})
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	prefix, suffix, err := a.finish(sig)
	if err != nil {
		return err
	}
	if _, err := out.Write(prefix); err != nil {
		return err
	}
	if err := steps(out); err != nil {
		return err
	}
	_, err = out.Write(append(suffix, '\n'))
	return err
}
