package server

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/verdict"
)

// verify answers POST /v1/verify (and runback's path, POST
// /api/audit/verify) with the exact object logbook-verify --json prints,
// status 200 whatever the verdict. The body is the record
// itself, or multipart/form-data with a part "record" and optional parts
// "pubkey", "checkpoint" and "checkpointKey" (each repeatable; the same
// files as logbook-verify's flags). The whole body is at most
// MaxVerifyBody bytes: above, 413 and a JSON error.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	// Wait as a hook request does: a bounded time, and not at all for a
	// client that went away (a bare send here queued callers forever
	// behind two slow ones).
	if !s.acquire(w, r, s.verifySlots) {
		return
	}
	defer func() { <-s.verifySlots }()
	body, code, detail := readBody(w, r, s.cfg.MaxVerifyBody)
	if code != "" {
		s.fail(w, r, code, detail)
		return
	}
	if s.verifyCassette(w, r, body) { // a runback cassette: cassette.go
		return
	}
	in := verdict.Inputs{Record: body}
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "multipart/form-data" {
		if in, err = multipartInputs(body, params["boundary"]); err != nil {
			s.fail(w, r, errBadVerify, err.Error())
			return
		}
	}
	var out bytes.Buffer
	verdict.WriteJSON(&out, verdict.Run(in))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(out.Bytes())
}

func multipartInputs(body []byte, boundary string) (verdict.Inputs, error) {
	var in verdict.Inputs
	if boundary == "" {
		return in, errors.New("multipart/form-data without a boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	seenRecord := false
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return in, err
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return in, err
		}
		switch name := p.FormName(); name {
		case "record":
			if seenRecord {
				return in, errors.New("more than one part named record")
			}
			in.Record, seenRecord = data, true
		case "pubkey":
			pub, err := keys.ParsePublicKeyPEM(data)
			if err != nil {
				return in, fmt.Errorf("pubkey: %v", err)
			}
			in.Pinned = append(in.Pinned, ed25519.PublicKey(pub))
		case "checkpoint":
			in.Checkpoints = append(in.Checkpoints, data)
		case "checkpointKey":
			var k checkpoint.Key
			if bytes.Contains(data, []byte("-----BEGIN")) {
				k.Pub, err = keys.ParsePublicKeyPEM(data)
			} else {
				k, err = checkpoint.ParseVerifierKey(data)
			}
			if err != nil {
				return in, fmt.Errorf("checkpointKey: %v", err)
			}
			if d := record.WeakKey(k.Pub); d != "" {
				return in, fmt.Errorf("checkpointKey: %s", d)
			}
			in.CheckpointKeys = append(in.CheckpointKeys, k)
		default:
			return in, fmt.Errorf("unknown part %q (want record, pubkey, checkpoint, checkpointKey)", name)
		}
	}
	if !seenRecord {
		return in, errors.New("no part named record")
	}
	if len(in.Checkpoints) > 0 && len(in.CheckpointKeys) == 0 {
		return in, errors.New("checkpoint parts need at least one checkpointKey part")
	}
	return in, nil
}
