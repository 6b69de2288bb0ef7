package server

import (
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/rotation"
)

// WellKnownKeyPath is where runback publishes its audit key, so a
// verifier can fetch it out of band; logbook-server serves its own key
// there too, as SPKI PEM (what logbook-verify --pubkey takes).
const WellKnownKeyPath = "/.well-known/runback-audit-key.pem"

// keyRoutes adds the key routes. The well-known key needs no token: it is
// public, and fetching it out of band is its purpose.
func (s *Server) keyRoutes(mux *http.ServeMux) {
	mux.HandleFunc(WellKnownKeyPath, s.method("GET", s.getKeyPEM))
}

func (s *Server) getKeyPEM(w http.ResponseWriter, r *http.Request) {
	_, pubPEM, err := keys.MarshalPair(s.cfg.Key, s.cfg.Key.Public().(ed25519.PublicKey))
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/x-pem-file")
	w.Header().Set("Cache-Control", "no-cache") // a rotation changes it
	w.Write(pubPEM)
}

// previousKeys lists the keys that signed for the server before the one
// in force, oldest first, each with when it was handed over, and the
// rotation notes (docs/key-rotation.md) that prove each hand-over.
func (s *Server) previousKeys() (prev []map[string]string, notes []string) {
	prev, notes = []map[string]string{}, []string{}
	for _, r := range s.rotations {
		vkey, _ := checkpoint.VerifierKey(s.cfg.Origin, r.Old)
		prev = append(prev, map[string]string{"keyId": checkpoint.KeyID(r.Old), "publicKey": hex.EncodeToString(r.Old),
			"verifierKey": vkey, "until": r.At.UTC().Format(time.RFC3339)})
		notes = append(notes, string(r.Note))
	}
	return prev, notes
}

// loadRotations reads DATA/key-rotations: the server refuses to start
// with a key it has handed over.
func loadRotations(cfg Config) ([]rotation.Rotation, error) {
	return rotation.Load(cfg.Dir, cfg.Origin, cfg.Key.Public().(ed25519.PublicKey))
}
