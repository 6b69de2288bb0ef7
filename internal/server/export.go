package server

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/bundlecheck"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/verdict"
)

// ConsoleExport is an auditor's download for session id (docs/console.md):
// a zip of the hand-over bundle (the record, the server's key, its
// checkpoint and proof of logging when there is one), the server's public
// key to trust, the verification transcript (what logbook-verify --bundle
// says of it, and the command that says it again offline), and the
// organization policy in force, when the server has one. p must be
// allowed to read the session.
func (s *Server) ConsoleExport(ctx context.Context, p fleet.Principal, id string) ([]byte, error) {
	rec, err := s.ConsoleRecord(p, id)
	if err != nil {
		return nil, err
	}
	data, transcript, err := s.exportOne(id, rec)
	if err != nil {
		return nil, err
	}
	return s.exportZip([]exportFile{{id + ".bundle.json", data}, {"verification.txt", transcript}})
}

// ConsoleExportSearch is the export of a search: each session of the
// page the filters v give p (sealed ones: an open session has no record
// yet, and is named in the transcript) as ID.bundle.json, one
// verification transcript for them all, the keys and the policy once.
func (s *Server) ConsoleExportSearch(ctx context.Context, p fleet.Principal, v url.Values) ([]byte, error) {
	pg, err := s.ConsoleSessions(ctx, p, v)
	if err != nil {
		return nil, err
	}
	var files []exportFile
	var transcript bytes.Buffer
	for _, e := range pg.Sessions {
		rec, err := s.ConsoleRecord(p, e.ID)
		if errors.Is(err, ErrNotSealed) {
			fmt.Fprintf(&transcript, "# %s: not sealed yet, no record to export\n\n", e.ID)
			continue
		}
		if err != nil {
			return nil, err
		}
		data, t, err := s.exportOne(e.ID, rec)
		if err != nil {
			return nil, err
		}
		files = append(files, exportFile{e.ID + ".bundle.json", data})
		transcript.Write(t)
		transcript.WriteString("\n")
	}
	return s.exportZip(append(files, exportFile{"verification.txt", transcript.Bytes()}))
}

type exportFile struct {
	name string
	body []byte
}

// exportOne is session id's bundle and what logbook-verify --bundle says
// of it, with the command.
func (s *Server) exportOne(id string, rec []byte) (data, transcriptText []byte, err error) {
	base := filepath.Join(s.cfg.Dir, id)
	pub := s.cfg.Key.Public().(ed25519.PublicKey)
	pubPEM := s.ConsoleKeys()[0]
	vkey, err := checkpoint.VerifierKey(s.cfg.Origin, pub)
	if err != nil {
		return nil, nil, err
	}
	b := &bundle.Bundle{Record: bytes.TrimSpace(rec), SignerKey: pubPEM, CheckpointKeys: []string{vkey}, LogProofs: [][]byte{}}
	if cp, err := os.ReadFile(base + ".record.checkpoint"); err == nil {
		b.Checkpoints = [][]byte{cp}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if proof, err := os.ReadFile(base + ".record.tlog-proof"); err == nil {
		b.LogProofs = [][]byte{proof}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	data, err = bundle.Write(b)
	if err != nil {
		return nil, nil, err
	}
	var transcript bytes.Buffer
	cmd := fmt.Sprintf("logbook-verify --bundle %s.bundle.json --trust server.pub --checkpoint-key server.vkey", id)
	fmt.Fprintf(&transcript, "$ %s\n", cmd)
	opened, refused := bundlecheck.Open(data)
	if refused != nil {
		verdict.WriteHuman(&transcript, *refused)
	} else {
		key, err := checkpoint.ParseVerifierKey([]byte(vkey))
		if err != nil {
			return nil, nil, err
		}
		res, err := bundlecheck.Check(opened, bundlecheck.Options{Trusted: []ed25519.PublicKey{pub}, CheckpointKeys: []checkpoint.Key{key}})
		if err != nil {
			return nil, nil, err
		}
		verdict.WriteHuman(&transcript, res.Outcome)
		for _, n := range res.Notes {
			fmt.Fprintf(&transcript, "note: %s\n", n)
		}
	}
	return data, transcript.Bytes(), nil
}

// exportZip is the files, with the keys to trust and the policy in force,
// as one zip.
func (s *Server) exportZip(files []exportFile) ([]byte, error) {
	pub := s.cfg.Key.Public().(ed25519.PublicKey)
	vkey, err := checkpoint.VerifierKey(s.cfg.Origin, pub)
	if err != nil {
		return nil, err
	}
	files = append(files, exportFile{"server.pub", []byte(s.ConsoleKeys()[0])}, exportFile{"server.vkey", []byte(vkey + "\n")})
	if len(s.cfg.PolicyFile) > 0 {
		files = append(files, exportFile{"policy.signed.json", s.cfg.PolicyFile})
	}
	var out bytes.Buffer
	z := zip.NewWriter(&out)
	for _, f := range files {
		w, err := z.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: s.cfg.Now()})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
