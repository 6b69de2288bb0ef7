package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
)

// notARecord names the one file users most often pass by mistake: an
// in-progress session (ID.steps.jsonl), which is not a record until it is
// sealed. Anything else goes to the verifier, which names its refusal.
func notARecord(file string, data []byte) error {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if !strings.HasSuffix(file, ".steps.jsonl") && !bytes.Contains(first, []byte(`"format":"`+format.Journal+`"`)) {
		return nil
	}
	id := strings.TrimSuffix(filepath.Base(file), ".steps.jsonl")
	return fmt.Errorf("%s is an unsealed session (%s), not a record: seal it with logbook-seal --dir %s --session %s, then verify ID.record.json (or watch it with logbook-verify --follow %s)",
		file, format.Journal, filepath.Dir(file), id, file)
}
