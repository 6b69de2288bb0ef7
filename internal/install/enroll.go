package install

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/hookpost"
)

// enroll trades the enrollment code for this developer's credential at
// the server base (POST /v1/enroll) and keeps it, 0600, where the hooks
// read it (hookpost.CredentialPath). The credential is a bearer token:
// Claude Code's HTTP hooks can send nothing else (a header from the
// environment), and record-step then sends it as it sent the shared
// token, with no key to read and nothing to sign per event
// (docs/fleet.md, "Why a token").
func enroll(base, code string, httpHooks bool, getenv func(string) string) ([]string, error) {
	path := hookpost.CredentialPath(getenv)
	if path == "" {
		return nil, fmt.Errorf("--enroll: no configuration directory to keep the credential in ($HOME or %%APPDATA%% unset)")
	}
	url := strings.TrimSuffix(base, "/") + "/v1/enroll"
	c := http.Client{Timeout: serverTimeout}
	if sock, ok := strings.CutPrefix(base, "unix:"); ok {
		url = "http://logbook-server/v1/enroll"
		c.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}
	}
	body, _ := json.Marshal(map[string]string{"code": strings.TrimSpace(code)})
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("--enroll: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var out struct {
		Error, Detail   string
		Credential, ID  string
		Tenant, Subject string
	}
	json.Unmarshal(b, &out)
	if resp.StatusCode != http.StatusOK || out.Credential == "" {
		return nil, fmt.Errorf("--enroll: the server refused the code: %s %s (%s): ask your admin for a new one (logbook-server enroll)", resp.Status, out.Error, out.Detail)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := durable.WriteFileMode(path, []byte(out.Credential+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("--enroll: keeping the credential: %v", err)
	}
	notes := []string{fmt.Sprintf("enrolled as %s in %s: credential %s kept in %s (0600); the record-step --server hooks send it", out.Subject, out.Tenant, out.ID, path)}
	if httpHooks {
		// Only the harness's own HTTP hooks need the variable: with
		// --command-hooks, record-step reads the file itself.
		notes = append(notes, fmt.Sprintf("Claude Code's HTTP hooks send only $LOGBOOK_SERVER_TOKEN: export LOGBOOK_SERVER_TOKEN=\"$(cat %s)\" in the shell that starts the agent, or install with --command-hooks", path))
	}
	return notes, nil
}
