package hookpost

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/logbook-project/logbook/internal/userdirs"
)

// CredentialFile is the name, in logbook's configuration directory
// (userdirs.Config), of the credential record-step install --enroll
// traded an enrollment code for (0600; docs/fleet.md).
const CredentialFile = "server-credential"

// CredentialPath is where the enrolled credential is kept, "" when the
// configuration directory is unknown.
func CredentialPath(getenv func(string) string) string {
	d := userdirs.Config(runtime.GOOS, getenv)
	if d == "" {
		return ""
	}
	return filepath.Join(d, CredentialFile)
}

// Token is the bearer token a hook sends to the server:
// $LOGBOOK_SERVER_TOKEN when set (the shared token, or an enrolled
// credential exported there, as Claude Code's HTTP hooks need it), else
// the enrolled credential's file: one read of a few dozen bytes, and
// none when the variable is set.
func Token(getenv func(string) string) string {
	if t := getenv("LOGBOOK_SERVER_TOKEN"); t != "" {
		return t
	}
	p := CredentialPath(getenv)
	if p == "" {
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b [256]byte
	n, _ := f.Read(b[:])
	return strings.TrimSpace(string(b[:n]))
}
