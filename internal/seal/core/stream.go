package core

import (
	"bufio"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record/signed"
)

// SealFile is Seal for a session of any length: neither the steps nor the
// record are ever held in memory (issue 22: a seal's peak was four times
// its journal). The journal is read as a stream (journalfile.Stream) into a
// temporary file of the canonical steps array, which is then read three
// times, twice to sign (edsign.SignStream) and once to write the record
// into a second temporary file; both are made in tmpDir (the directory of
// the record's final path, so that a rename can put it in place). The
// record file is fsynced and closed, the steps file removed, and then
// opt.CheckFile must accept it. SealFile returns the record file's path
// (Result.Record is nil); placing it, or removing it, is the caller's
// part. On any error nothing is left in tmpDir.
//
// The bytes are Seal's for the same journal and options, and so are the
// journal's changes (a torn tail cut, the unfinished-call note).
func SealFile(j *journalfile.Journal, priv ed25519.PrivateKey, opt Options, tmpDir string) (res Result, path string, err error) {
	if opt.CheckFile == nil {
		return res, "", fmt.Errorf("seal: no CheckFile given")
	}
	cuts, err := j.Repair(opt.Now)
	if err != nil {
		return res, "", err
	}
	res.TornBytes = cuts > 0
	removeStale(tmpDir, j.Session)
	stepsFile, err := os.CreateTemp(tmpDir, "."+j.Session+".steps-*.tmp")
	if err != nil {
		return res, "", fmt.Errorf("seal: a temporary file for the steps: %w", err)
	}
	defer func() {
		stepsFile.Close()
		os.Remove(stepsFile.Name())
	}()
	scan := scanner{copy: true}
	hdr, steps, err := streamTo(j, &scan, stepsFile)
	if err != nil {
		return res, "", err
	}
	if hdr.Session != j.Session {
		return res, "", fmt.Errorf("%s belongs to session %q, not %q", journalfile.Path(j.Dir, j.Session), hdr.Session, j.Session)
	}
	if ids := scan.unfinished(); len(ids) > 0 {
		res.Unfinished = ids
		if _, err := j.Append(hdr, []chain.Step{unfinishedNote(ids, scan.lastAtOr(opt.Now))}); err != nil {
			return res, "", err
		}
		scan = scanner{copy: true}
		if hdr, steps, err = streamTo(j, &scan, stepsFile); err != nil {
			return res, "", err
		}
	}
	if steps.Count == 0 {
		return res, "", fmt.Errorf("session %s has no steps", j.Session)
	}
	sess, err := session(hdr, &scan, opt)
	if err != nil {
		return res, "", err
	}
	recFile, err := os.CreateTemp(tmpDir, "."+j.Session+".record-*.tmp")
	if err != nil {
		return res, "", fmt.Errorf("seal: a temporary file for the record: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			recFile.Close()
			os.Remove(recFile.Name())
		}
	}()
	// The steps file's bytes, as often as they are asked for.
	var rd *bufio.Reader
	stepsBytes := func(w io.Writer) error {
		if _, err := stepsFile.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if rd == nil {
			rd = bufio.NewReaderSize(stepsFile, 1<<16)
		} else {
			rd.Reset(stepsFile)
		}
		_, err := rd.WriteTo(w)
		return err
	}
	bw := bufio.NewWriterSize(recFile, 1<<16)
	err = signed.AssembleTo(bw, sess, stepsBytes, steps.Count, steps.LastHash, priv,
		signed.Extras{Certificates: opt.Certificates, Timestamp: opt.Timestamp})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = recFile.Sync()
	}
	if cerr := recFile.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, "", fmt.Errorf("seal: writing %s: %w", recFile.Name(), err)
	}
	// The steps file has served: it goes before the check, which reads
	// the record as any verifier would.
	stepsFile.Close()
	os.Remove(stepsFile.Name())
	res.Steps = steps.Count
	if err := opt.CheckFile(recFile.Name()); err != nil {
		return res, "", fmt.Errorf("sealed record does not verify (%v); nothing written", err)
	}
	ok = true
	return res, recFile.Name(), nil
}

// streamTo reads the journal into f (emptied first) as the canonical
// steps array, the scan seeing every step.
func streamTo(j *journalfile.Journal, scan *scanner, f *os.File) (journalfile.Header, journalfile.Steps, error) {
	if err := f.Truncate(0); err != nil {
		return journalfile.Header{}, journalfile.Steps{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return journalfile.Header{}, journalfile.Steps{}, err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	hdr, steps, err := j.Stream(scan.step, bw)
	if err != nil {
		return hdr, steps, err
	}
	return hdr, steps, bw.Flush()
}

// removeStale removes the temporary files a seal of session killed before
// it could clean up left in dir (each about the record's size). The
// journal's lock is held: no other seal of the session is running.
func removeStale(dir, session string) {
	for _, kind := range []string{"steps", "record"} {
		// A session id is [A-Za-z0-9._-] (journalfile.ValidSessionID):
		// nothing in it is special to filepath.Match.
		old, _ := filepath.Glob(filepath.Join(dir, "."+session+"."+kind+"-*.tmp"))
		for _, f := range old {
			os.Remove(f)
		}
	}
}
