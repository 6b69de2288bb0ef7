package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// cachedSum returns the SHA-256 of the executable at path from the cache
// in $XDG_CACHE_HOME/logbook/exe-sha256/, keyed by what any change to the
// file changes: device, inode, size, modification and status-change
// times (ctime cannot be set back from user space). Hashing a 5-10 MB
// binary was a third of logbook-wrap --out's time, paid on every session
// start. A cache entry claims nothing a recorder could not claim itself:
// session.recorder is the running program's own statement, and a program
// that lies about its hash needs no cache to do so. ok is false when
// there is no entry.
func cachedSum(path string) (sum, key string, ok bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", "", false
	}
	s, isStat := st.Sys().(*syscall.Stat_t)
	if !isStat {
		return "", "", false
	}
	k := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d %d %d %d.%d %d.%d", path, s.Dev, s.Ino, s.Size, s.Mtim.Sec, s.Mtim.Nsec, s.Ctim.Sec, s.Ctim.Nsec))
	key = hex.EncodeToString(k[:16])
	dir, err := cacheDir()
	if err != nil {
		return "", key, false
	}
	b, err := os.ReadFile(filepath.Join(dir, key))
	if err != nil || len(b) != 64 {
		return "", key, false
	}
	if _, err := hex.DecodeString(string(b)); err != nil {
		return "", key, false
	}
	return string(b), key, true
}

// storeSum writes a cache entry, best effort (a failure only costs the
// next run a hash): a temporary file renamed into place, so a reader
// never sees half an entry.
func storeSum(key, sum string) {
	dir, err := cacheDir()
	if err != nil || key == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return
	}
	_, werr := f.WriteString(sum)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), filepath.Join(dir, key)) != nil {
		os.Remove(f.Name())
	}
}

func cacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "logbook", "exe-sha256"), nil
}
