//go:build unix

package keyperm

import (
	"fmt"
	"os"
)

// Fix is what to do about an exposed key.
const Fix = "chmod 600 it"

// Exposed says how others than the owner can read or write path ("mode
// -rw-r--r--"), "" when they cannot.
func Exposed(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Sprintf("mode %v", st.Mode().Perm()), nil
	}
	return "", nil
}
