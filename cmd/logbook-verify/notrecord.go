package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
)

// notARecord names the one file users most often pass by mistake: an
// in-progress session (ID.steps.jsonl), which is not a record until it is
// sealed. Anything else goes to the verifier, which names its refusal.
func notARecord(file string, data []byte) error {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	header := `"format":"` + format.Journal + `"`
	if !strings.HasSuffix(file, ".steps.jsonl") && !containsFrom(first, []byte(header), strings.IndexByte(header, '@')) {
		return nil
	}
	id := strings.TrimSuffix(filepath.Base(file), ".steps.jsonl")
	if rec := filepath.Join(filepath.Dir(file), id+".record.json"); exists(rec) {
		// Sealed already: the record is beside it, and sealing again
		// is not the fix.
		return fmt.Errorf("%s is a session's in-progress file (%s), not a record; the session is sealed: verify its record, logbook-verify %s", file, format.Journal, rec)
	}
	return fmt.Errorf("%s is an unsealed session (%s), not a record: seal it with logbook-seal --dir %s --session %s, then verify ID.record.json (or watch it with logbook-verify --follow %s)",
		file, format.Journal, filepath.Dir(file), id, file)
}

func exists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}
