package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/logbook-project/logbook/internal/testkit/ostest"
	"github.com/logbook-project/logbook/schema"
)

const configDir = "../../testdata/redact/config"

// semanticOnly are refusals a JSON Schema cannot express (the regexp's
// meaning, JSON reading rules): the schema accepts them, the loader not.
var semanticOnly = map[string]bool{
	"fail_bad_regexp.json": true, "fail_matches_empty.json": true,
	"fail_matches_mask.json": true, "fail_duplicate_key.json": true,
}

// TestConfigFixtures: every good_* config loads and every fail_* one is
// refused with ErrBadConfig; the JSON Schema agrees wherever it can.
func TestConfigFixtures(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schema.RedactURL, bytes.NewReader(schema.Redact)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schema.RedactURL)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(configDir, "*.json"))
	if len(files) < 10 {
		t.Fatalf("only %d config fixtures", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		data, _ := os.ReadFile(f)
		good := strings.HasPrefix(name, "good_")
		_, err := ParseConfig(data)
		if good != (err == nil) {
			t.Errorf("%s: ParseConfig error %v", name, err)
		}
		if err != nil && !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: error does not wrap ErrBadConfig: %v", name, err)
		}
		var v any
		jerr := json.Unmarshal(data, &v) // the schema's view; duplicates are the loader's job
		schemaOK := jerr == nil && sch.Validate(v) == nil
		if want := good || semanticOnly[name]; schemaOK != want {
			t.Errorf("%s: schema accepts %v, want %v", name, schemaOK, want)
		}
	}
}

// TestLoadConfig: a missing file means built-in rules only; a project
// pattern and key are applied; a malformed file names its path; a FIFO
// under the name neither hangs nor is read.
func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	if r, err := LoadConfig(dir); r != nil || err != nil {
		t.Fatalf("no file: %v %v", r, err)
	}
	good, _ := os.ReadFile(filepath.Join(configDir, "good_acme.json"))
	os.WriteFile(filepath.Join(dir, ConfigFile), good, 0o600)
	r, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	in := "curl -H 'X-Acme-Auth: s3cr3t-value' https://x --seed 12345 acme_0123456789abcdef0123456789abcdef"
	got := r.String(in)
	for _, s := range []string{"s3cr3t-value", "12345", "acme_0123456789abcdef"} {
		if strings.Contains(got, s) {
			t.Errorf("%q survives: %q", s, got)
		}
	}
	if String(in) == got {
		t.Errorf("the project patterns changed nothing over the built-in rules")
	}
	// Loading a project's patterns sets nothing process-wide: the
	// package-level String still applies the built-in rules only.
	if String(in) == got {
		t.Errorf("LoadConfig changed what package-level String applies")
	}

	bad, _ := os.ReadFile(filepath.Join(configDir, "fail_bad_regexp.json"))
	os.WriteFile(filepath.Join(dir, ConfigFile), bad, 0o600)
	if _, err := LoadConfig(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ConfigFile)) || !errors.Is(err, ErrBadConfig) {
		t.Errorf("malformed config: %v", err)
	}
	os.Remove(filepath.Join(dir, ConfigFile))
	// A link that leads nowhere is a config that cannot be read, not an
	// absent one: the project's patterns must not be dropped unnoticed.
	os.Symlink("/nonexistent/redact.json", filepath.Join(dir, ConfigFile))
	if _, err := LoadConfig(dir); err == nil || !errors.Is(err, ErrBadConfig) {
		t.Errorf("dangling symlink: %v", err)
	}
	os.Remove(filepath.Join(dir, ConfigFile))
	if err := ostest.Mkfifo(filepath.Join(dir, ConfigFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO config: %v", err)
	}
}

// FuzzParseConfig: any bytes are loaded or refused with ErrBadConfig,
// never a panic; what loads builds a Redactor.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(configDir, "*.json"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("error does not wrap ErrBadConfig: %v", err)
			}
			return
		}
		if _, err := New(pats); err != nil {
			t.Fatalf("loaded but New refuses: %v", err)
		}
	})
}
