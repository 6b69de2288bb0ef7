package hookpost

import "crypto/rand"

// readRandom fills b from the system's random source (Windows has no
// /dev/urandom; crypto/rand calls ProcessPrng).
func readRandom(b []byte) error {
	_, err := rand.Read(b)
	return err
}
