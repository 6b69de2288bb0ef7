package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/tsa"
	"github.com/logbook-project/logbook/internal/tsa/client"
)

// tsaTimeout bounds one round trip to a time-stamping authority. A
// SessionEnd hook that asks for a token needs a hook timeout above it.
const tsaTimeout = 10 * time.Second

// trust reads --cert-chain and sets up --tsa / --tsa-cmd. Its errors are
// usage errors (exit 2).
func trust(c config, priv ed25519.PrivateKey) (certs [][]byte, stamp func([]byte) ([]byte, error), err error) {
	if c.certChain != "" {
		text, err := readlimit.Small(c.certChain, readlimit.Roots)
		if err != nil {
			return nil, nil, fmt.Errorf("--cert-chain: %w", err)
		}
		chain, err := identity.ParseChain(text)
		if err != nil {
			return nil, nil, fmt.Errorf("--cert-chain %s: %v", c.certChain, err)
		}
		if certs, err = identity.ForKey(chain, priv.Public().(ed25519.PublicKey)); err != nil {
			return nil, nil, fmt.Errorf("--cert-chain %s: %v", c.certChain, err)
		}
	}
	var t tsa.Transport
	switch {
	case c.tsaURL != "" && c.tsaCmd != "":
		return nil, nil, errors.New("--tsa and --tsa-cmd: give one")
	case c.tsaURL != "":
		t = client.HTTP(c.tsaURL, tsaTimeout)
	case c.tsaCmd != "":
		t = client.Command(c.tsaCmd, tsaTimeout)
	}
	if t != nil {
		stamp = func(sig []byte) ([]byte, error) { return tsa.Stamp(sig, t, rand.Reader) }
	}
	return certs, stamp, nil
}
