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

	"github.com/logbook-project/logbook/internal/cassettecheck"
)

// verifyCassette answers POST /v1/verify for a runback cassette (a body,
// or a multipart part "record", whose top-level $schema starts
// "runback."): the bytes `logbook-verify --json CASSETTE` prints, status
// 200 whatever the verdict. Multipart parts: record, pubkey, revoked,
// hmacKey (each repeatable but record), strict (any value). It reports
// whether the body was a cassette.
func (s *Server) verifyCassette(w http.ResponseWriter, r *http.Request, body []byte) bool {
	var opt cassettecheck.Options
	rec := body
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == "multipart/form-data" {
		var ok bool
		rec, opt, ok, err = cassetteParts(body, params["boundary"])
		if !ok {
			return false // not a cassette: the record path reads the parts
		}
		if err != nil {
			s.fail(w, r, errBadVerify, err.Error())
			return true
		}
	} else if !cassettecheck.Detect(body) {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(cassettecheck.JSON(cassettecheck.Verify(rec, opt)))
	return true
}

// cassetteParts reads the form; ok is false when its record part is not a
// cassette.
func cassetteParts(body []byte, boundary string) (rec []byte, opt cassettecheck.Options, ok bool, err error) {
	if boundary == "" {
		return nil, opt, false, nil
	}
	type part struct {
		name string
		data []byte
	}
	var parts []part
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, opt, false, nil // the record path names the error
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, opt, false, nil
		}
		parts = append(parts, part{p.FormName(), data})
		if p.FormName() == "record" {
			rec = data
		}
	}
	if rec == nil || !cassettecheck.Detect(rec) {
		return nil, opt, false, nil
	}
	for _, p := range parts {
		switch p.name {
		case "record":
		case "pubkey", "revoked":
			k, err := cassettecheck.PublicKey(p.data)
			if err != nil {
				return nil, opt, true, fmt.Errorf("%s: %v", p.name, err)
			}
			if p.name == "pubkey" {
				opt.Pinned = append(opt.Pinned, ed25519.PublicKey(k))
			} else {
				opt.Revoked = append(opt.Revoked, k)
			}
		case "hmacKey":
			k := cassettecheck.TrimKey(p.data)
			if len(k) == 0 {
				return nil, opt, true, errors.New("hmacKey: empty")
			}
			opt.HMACKeys = append(opt.HMACKeys, k)
		case "strict":
			opt.Strict = true
		default:
			return nil, opt, true, fmt.Errorf("unknown part %q for a cassette (want record, pubkey, revoked, hmacKey, strict)", p.name)
		}
	}
	return rec, opt, true, nil
}
