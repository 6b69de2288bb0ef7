package install

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/hookpost"
)

// serverTimeout bounds install's one question to the server.
const serverTimeout = 3 * time.Second

// checkServer asks the logbook server at base, as the hooks will ask it,
// whether it takes their events: GET /v1/key with the bearer token the
// hooks send ($LOGBOOK_SERVER_TOKEN, from the environment the agent starts
// in; install sees its own). A server that wants a token the agent will not
// have records nothing, and says so only in its own log: install says it
// first, as a warning on stderr. It returns the notes for stdout.
func checkServer(base string, stderr io.Writer, getenv func(string) string) []string {
	tok := strings.TrimSpace(hookpost.Token(getenv))
	url := strings.TrimSuffix(base, "/") + "/v1/key"
	c := http.Client{Timeout: serverTimeout}
	if sock, ok := strings.CutPrefix(base, "unix:"); ok {
		// logbook-server --listen unix:/PATH: HTTP over the socket, as
		// record-step --server sends it (internal/hookpost).
		url = "http://logbook-server/v1/key"
		c.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}
	}
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return []string{fmt.Sprintf("the server at %s could not be asked (%v)", base, err)}
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.Do(req)
	if err != nil {
		return []string{fmt.Sprintf("the server at %s does not answer now (%v): nothing is recorded until it does, and each session's start says so", base, err)}
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized && tok == "":
		fmt.Fprintf(stderr, "WARNING: the logbook server at %s wants a token, and LOGBOOK_SERVER_TOKEN is not set here. The hooks send the token from the environment the agent starts in: export LOGBOOK_SERVER_TOKEN (the server's --token-file holds it) in the shell that starts the agent, or NOTHING IS RECORDED (each session's start says so).\n", base)
	case resp.StatusCode == http.StatusUnauthorized:
		fmt.Fprintf(stderr, "WARNING: the logbook server at %s refuses the token in LOGBOOK_SERVER_TOKEN: with it, NOTHING IS RECORDED; export the one its --token-file holds.\n", base)
	case resp.StatusCode != http.StatusOK:
		return []string{fmt.Sprintf("the server at %s answered GET /v1/key with %s: is it a logbook server?", base, resp.Status)}
	case tok != "" && strings.TrimSpace(getenv("LOGBOOK_SERVER_TOKEN")) == "":
		return []string{fmt.Sprintf("the server at %s takes the enrolled credential (%s), which the record-step --server hooks send", base, hookpost.CredentialPath(getenv))}
	case tok != "":
		return []string{fmt.Sprintf("the server at %s takes the token in LOGBOOK_SERVER_TOKEN: export it too in the shell that starts the agent", base)}
	default:
		return []string{fmt.Sprintf("the server at %s answers without a token", base)}
	}
	return nil
}

// serverInfo is what install learns from the server's GET /v1/key: its
// public key (to pin) and whether it gates calls with an organization
// policy (to make the gated hooks fail closed).
type serverInfo struct {
	PublicKey string `json:"publicKey"`
	Gated     bool   `json:"gated"`
	// ApprovalWait: the longest the server holds a call for an approver
	// (seconds; docs/approvals.md): the gated hooks wait that long.
	ApprovalWait int `json:"approvalWait"`
}

// pinKey is the server key the hooks pin: --server-key as given (checked:
// 64 hex digits of a point of large order), else the publicKey the server
// at an http:// URL gave on GET /v1/key (info, askErr). A server that
// cannot be asked leaves the hooks unpinned, with a warning note: nothing
// checks who answers them then. An error is a bad --server-key.
func pinKey(o Options, info serverInfo, askErr error, getenv func(string) string) (key, note string, err error) {
	if o.ServerKey != "" {
		if _, err := hookpost.ParseKey(o.ServerKey); err != nil {
			return "", "", fmt.Errorf("--server-key: %v", err)
		}
		return o.ServerKey, "the hooks take only answers signed by the server key " + o.ServerKey + " (--server-key)", nil
	}
	if !strings.HasPrefix(o.Server, "http://") {
		if strings.HasPrefix(o.Server, "unix:") {
			return "", "", nil // the socket's owner is checked (hookpost/peer.go)
		}
		return "", "WARNING: no server key is pinned for " + o.Server + " (give --server-key HEX, GET /v1/key's publicKey): the hooks take any 200 as recorded", nil
	}
	if askErr == nil {
		_, askErr = hookpost.ParseKey(info.PublicKey)
	}
	if askErr != nil {
		hint := "install again once it answers"
		if getenv("LOGBOOK_SERVER_TOKEN") == "" {
			// GET /v1/key wants the hook token where the server has one:
			// the likeliest reason, and one install cannot mend later.
			hint = "export LOGBOOK_SERVER_TOKEN (a server with --token-file answers its key only with it) and install again"
		}
		return "", "WARNING: the server key could not be asked of " + o.Server + " (" + askErr.Error() + "), so none is pinned and the hooks take any 200 as recorded: " + hint + ", or give --server-key HEX (GET /v1/key's publicKey)", nil
	}
	return info.PublicKey, "the hooks take only answers signed by the server's key " + info.PublicKey + " (GET /v1/key now; after a key rotation install again, or give --server-key)", nil
}

// askServer asks the server what GET /v1/key says (with the hooks'
// token), over http:// or its unix: socket.
func askServer(base string, getenv func(string) string) (serverInfo, error) {
	var info serverInfo
	url := strings.TrimSuffix(base, "/") + "/v1/key"
	c := http.Client{Timeout: serverTimeout}
	if sock, ok := strings.CutPrefix(base, "unix:"); ok {
		url = "http://logbook-server/v1/key"
		c.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}
	} else if !strings.HasPrefix(base, "http://") {
		return info, fmt.Errorf("%s is not asked (https: the hooks reach it through a local forwarder)", base)
	}
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return info, err
	}
	if tok := strings.TrimSpace(hookpost.Token(getenv)); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.Do(req)
	if err != nil {
		return info, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return info, fmt.Errorf("GET /v1/key answered %s", resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return info, fmt.Errorf("GET /v1/key: %v", err)
	}
	return info, nil
}
