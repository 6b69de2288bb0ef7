package decider

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// Identity is what changes when an executable is rebuilt or replaced:
// its file's device, inode, size and modification time.
type Identity struct {
	Dev, Ino uint64
	Size     int64
	Mtime    int64 // nanoseconds
}

// maxInput bounds the files hashed into the key (a policy is at most
// orgpolicy.MaxFile; a larger one goes to the exec'd hook, which names it).
const maxInput = 16 << 20

// Inputs reads the policy file and the trusted key files: the bytes the
// key is made of.
func Inputs(policy string, keys []string) (pol []byte, keyBytes [][]byte, err error) {
	if pol, err = readlimit.Small(policy, maxInput); err != nil {
		return nil, nil, err
	}
	for _, k := range keys {
		b, err := readlimit.Small(k, maxInput)
		if err != nil {
			return nil, nil, err
		}
		keyBytes = append(keyBytes, b)
	}
	return pol, keyBytes, nil
}

// KeyOf is a decider's key: a digest of the logbook-policy binary's
// identity, the policy's bytes, each trusted key's bytes (in order) and
// the --policy-fail mode. A decider serves one key and says it in every
// answer; the socket is named by it, so a changed policy, key or binary
// finds no decider (and starts one) rather than a stale one.
func KeyOf(exe Identity, policy []byte, keys [][]byte, failMode string) string {
	h := sha256.New()
	h.Write([]byte("logbook-policy decider key v1\n"))
	var b [32]byte
	binary.BigEndian.PutUint64(b[0:], exe.Dev)
	binary.BigEndian.PutUint64(b[8:], exe.Ino)
	binary.BigEndian.PutUint64(b[16:], uint64(exe.Size))
	binary.BigEndian.PutUint64(b[24:], uint64(exe.Mtime))
	h.Write(b[:])
	part := func(p []byte) {
		s := sha256.Sum256(p)
		h.Write(s[:])
	}
	part(policy)
	h.Write([]byte(strconv.Itoa(len(keys)) + "\n"))
	for _, k := range keys {
		part(k)
	}
	h.Write([]byte(failMode))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Mode is the part of a decider's key that is the gate's settings:
// --policy-fail and --require-policy. A decider loaded under one pin must
// never answer a call that gave another (or none).
func Mode(failMode, require string) string {
	return failMode + "\nrequire-policy " + require
}

// Dir is the directory of the user's deciders' sockets:
// $LOGBOOK_POLICYD_DIR, else $XDG_RUNTIME_DIR/logbook-policy, else
// TMPDIR/logbook-policy-UID.
func Dir(getenv func(string) string) string {
	if d := getenv("LOGBOOK_POLICYD_DIR"); d != "" {
		// The decider runs in /: a relative directory would be another
		// one for it than for its callers.
		if a, err := filepath.Abs(d); err == nil {
			return a
		}
		return d
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "logbook-policy")
	}
	return filepath.Join(os.TempDir(), "logbook-policy-"+strconv.Itoa(os.Geteuid()))
}

// Socket and LockFile are the key's socket and the lock its decider holds
// while it lives.
func Socket(dir, key string) string   { return filepath.Join(dir, key+".sock") }
func LockFile(dir, key string) string { return filepath.Join(dir, key+".lock") }
