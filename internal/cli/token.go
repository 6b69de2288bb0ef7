package cli

import "strings"

// ReadToken is the bearer token for a logbook-server's read routes (its
// records, checkpoints, proofs and log tiles): its read token
// ($LOGBOOK_SERVER_READ_TOKEN, logbook-server --read-token-file's), else
// $LOGBOOK_SERVER_TOKEN (a server with one token for everything).
func ReadToken(getenv func(string) string) string {
	if t := strings.TrimSpace(getenv("LOGBOOK_SERVER_READ_TOKEN")); t != "" {
		return t
	}
	return strings.TrimSpace(getenv("LOGBOOK_SERVER_TOKEN"))
}
