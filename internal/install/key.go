package install

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/userdirs"
)

// signingKey makes sure the session's end can seal: a key found where
// logbook-seal looks ($LOGBOOK_SIGNING_KEY, ~/.config/logbook/signing.key)
// is named; otherwise one is made there. When none is made (--no-key, or
// making it failed), stderr says loudly that sessions will be recorded
// but not sealed, and the exit status is 1 unless --no-key said that is
// the plan (CI that seals in a later job).
func signingKey(o Options, lk *links, stdout, stderr io.Writer, getenv func(string) string) int {
	if _, from, err := cli.SigningKeyPEM("", getenv); err == nil {
		fmt.Fprintf(stdout, "signing key: %s (the session's end seals with it)\n", from)
		return Done
	}
	warn := func(why string) {
		fmt.Fprintf(stderr, "record-step install: WARNING: %s: sessions will be recorded but NOT SEALED when they end (logbook-seal --hook leaves an unsealed-session notice that logbook-verify reports). Make a key with: logbook-seal --new-key ~/.config/logbook/signing.key, or seal later with: logbook-seal --session ID --key FILE\n", why)
	}
	if o.NoKey {
		warn("no signing key (--no-key)")
		return Done
	}
	dir := userdirs.Config(o.goos(), getenv)
	if dir == "" {
		warn("no signing key, and $HOME is not set, so none was made")
		return Refused
	}
	// home: where the symlink checks start (links.go).
	home := filepath.Dir(filepath.Dir(dir))
	if o.goos() == "windows" {
		home = filepath.Dir(dir) // %APPDATA%
	}
	path := filepath.Join(dir, "signing.key")
	for _, p := range []string{path, path + ".pub"} {
		if _, err := lk.check(home, p); err != nil {
			warn(fmt.Sprintf("no signing key made: %v", err))
			return Refused
		}
	}
	path, _ = lk.check(home, path)
	if err := keys.WriteNew(path); err != nil {
		warn(fmt.Sprintf("no signing key, and making %s failed (%v)", path, err))
		return Refused
	}
	fmt.Fprintf(stdout, "signing key: made %s (private, mode 0600) and %s.pub: give the .pub to whoever verifies your records; keep the key out of the agent's reach (docs/trust-model.md)\n", path, path)
	return Done
}
