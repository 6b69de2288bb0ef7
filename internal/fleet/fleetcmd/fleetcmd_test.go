package fleetcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoad: --oidc-config is read strictly: a misspelt key, an issuer
// without audiences, a tenant given twice or not at all are refused at
// start, not found out at the first token.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ cfg, err string }{
		"good":       {`{"issuers":[{"issuer":"https://i.example","audiences":["logbook"],"tenant":"acme","roles":["developer"]}]}`, ""},
		"misspelt":   {`{"issuers":[{"issuer":"https://i.example","audience":["logbook"],"tenant":"acme","roles":["developer"]}]}`, "unknown field"},
		"no aud":     {`{"issuers":[{"issuer":"https://i.example","tenant":"acme","roles":["developer"]}]}`, "needs issuer and audiences"},
		"two tenant": {`{"issuers":[{"issuer":"https://i.example","audiences":["l"],"tenant":"acme","tenantClaim":"t","roles":["developer"]}]}`, "one of them"},
		"bad role":   {`{"issuers":[{"issuer":"https://i.example","audiences":["l"],"tenant":"acme","roles":["boss"]}]}`, `role "boss"`},
		"dup key":    {`{"issuers":[],"issuers":[]}`, "duplicate"},
		"none":       {`{"issuers":[]}`, "no issuers"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(p, []byte(c.cfg), 0o600)
		f := Flags{oidc: p}
		fl, err := f.Load(filepath.Join(dir, "data"), nil)
		switch {
		case c.err == "" && (err != nil || fl == nil || fl.OIDC == nil):
			t.Errorf("%s: %v", name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want %q", name, err, c.err)
		}
	}
	if fl, err := (&Flags{}).Load(dir, nil); fl != nil || err != nil {
		t.Errorf("no flags: %v %v", fl, err)
	}
}
