// Package client carries time-stamp requests to an authority: over HTTP
// (RFC 3161 §3.4, application/timestamp-query) or through a local command
// that reads the DER request on stdin and writes the DER response on
// stdout (for example `openssl ts -reply`). It is apart from package tsa so
// that the verifier, which never talks to an authority, links no network
// code.
package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/shellrun"
	"github.com/logbook-project/logbook/internal/tsa"
)

// MaxResponse bounds what is read from an authority: a token with its
// certificate chain is a few kilobytes.
const MaxResponse = 1 << 20

// HTTP posts the request to url and returns the response body. A status
// other than 200 or a content type other than
// application/timestamp-reply is an error.
func HTTP(url string, timeout time.Duration) tsa.Transport {
	return func(req []byte) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(req))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/timestamp-query")
		r.Header.Set("Accept", "application/timestamp-reply")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			return nil, fmt.Errorf("time-stamping authority %s: %w", url, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
		if err != nil {
			return nil, fmt.Errorf("time-stamping authority %s: %w", url, err)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("time-stamping authority %s: HTTP %s", url, resp.Status)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/timestamp-reply") {
			return nil, fmt.Errorf("time-stamping authority %s: content type %q, want application/timestamp-reply", url, ct)
		}
		if len(body) > MaxResponse {
			return nil, fmt.Errorf("time-stamping authority %s: response over %d bytes", url, MaxResponse)
		}
		return body, nil
	}
}

// Command runs command through the shell (sh -c; Windows: cmd.exe) with the request on stdin and returns its
// stdout. A non-zero exit is an error that quotes the command's stderr.
func Command(command string, timeout time.Duration) tsa.Transport {
	return func(req []byte) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := shellrun.Command(ctx, command)
		killGroupOnCancel(cmd)
		cmd.WaitDelay = time.Second
		cmd.Stdin = bytes.NewReader(req)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &limited{w: &out}, &limited{w: &stderr}
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("--tsa-cmd %q: %v: %s", command, err, strings.TrimSpace(stderr.String()))
		}
		if out.Len() > MaxResponse {
			return nil, fmt.Errorf("--tsa-cmd %q: response over %d bytes", command, MaxResponse)
		}
		if out.Len() == 0 {
			return nil, fmt.Errorf("--tsa-cmd %q: wrote nothing on stdout", command)
		}
		return out.Bytes(), nil
	}
}

// limited keeps at most MaxResponse+1 bytes and discards the rest, so a
// runaway command cannot fill memory.
type limited struct{ w *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := MaxResponse + 1 - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
