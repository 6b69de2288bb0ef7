package redact

import (
	"errors"
	"fmt"
	"os"

	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// ConfigFile is the name of a project's redaction configuration, looked
// for in the session directory (DIR/redact.json; by default
// $CLAUDE_PROJECT_DIR/.logbook/redact.json). Its JSON Schema is
// schema/redact.schema.json:
//
//	{
//	  "patterns": [
//	    {"name": "ACME API token", "regexp": "acme_[0-9a-f]{32}"},
//	    {"name": "deploy header", "regexp": "(?i)x-acme-auth:\\s*(\\S+)"},
//	    {"name": "seed values", "key": "seed"}
//	  ]
//	}
//
// A pattern has an optional "name" and exactly one of "regexp" (RE2
// syntax; its first group, or else its whole match, is replaced) and "key"
// (one more secret word, letters and digits). See Pattern.
const ConfigFile = "redact.json"

// ErrBadConfig is wrapped by every error LoadConfig returns for a file
// that exists but cannot be used.
var ErrBadConfig = errors.New("redaction config unusable")

// maxConfig bounds the file: patterns are a few lines, and a config file
// is read by every hook.
const maxConfig = 1 << 20

// maxPatterns and maxRegexp bound what a config may ask of every hook:
// each regexp is compiled and run over every clear-text string of every
// event, and a hook has seconds, not minutes.
const (
	maxPatterns = 256
	maxRegexp   = 1024 // bytes of one regexp's source
)

// ParseConfig reads a redaction configuration (the format above): strict
// JSON (spec §1 rules: no duplicate keys, no trailing data), no unknown
// keys, and every pattern valid for New. Errors wrap ErrBadConfig and name
// the pattern at fault.
func ParseConfig(data []byte) ([]Pattern, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadConfig, fmt.Sprintf(format, a...))
	}
	if len(data) > maxConfig {
		return nil, bad("%d bytes, the limit is %d", len(data), maxConfig)
	}
	v, err := strictjson.Parse(data, strictjson.Options{MaxDepth: 8})
	if err != nil {
		return nil, bad("not JSON: %v", err)
	}
	if v.Kind != strictjson.Object {
		return nil, bad("the top level must be an object with \"patterns\"")
	}
	var list *strictjson.Value
	for _, m := range v.Members {
		switch m.Key {
		case "patterns":
			list = &m.Value
		case "$schema", "comment":
			// Editors' schema hint and a free note are allowed.
		default:
			return nil, bad("unknown key %q (allowed: patterns, $schema, comment)", m.Key)
		}
	}
	if list == nil || list.Kind != strictjson.Array {
		return nil, bad("\"patterns\" must be an array")
	}
	if len(list.Items) > maxPatterns {
		return nil, bad("%d patterns, the limit is %d", len(list.Items), maxPatterns)
	}
	out := make([]Pattern, 0, len(list.Items))
	for i, it := range list.Items {
		if it.Kind != strictjson.Object {
			return nil, bad("patterns[%d] is not an object", i)
		}
		var p Pattern
		for _, m := range it.Members {
			if m.Value.Kind != strictjson.String {
				return nil, bad("patterns[%d].%s must be a string", i, m.Key)
			}
			switch m.Key {
			case "name":
				p.Name = m.Value.Str
			case "regexp":
				if len(m.Value.Str) > maxRegexp {
					return nil, bad("patterns[%d].regexp is %d bytes, the limit is %d", i, len(m.Value.Str), maxRegexp)
				}
				p.Regexp = m.Value.Str
			case "key":
				p.Key = m.Value.Str
			default:
				return nil, bad("patterns[%d]: unknown key %q (allowed: name, regexp, key)", i, m.Key)
			}
		}
		out = append(out, p)
	}
	if _, err := New(out); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadConfig, err)
	}
	return out, nil
}

// LoadConfig reads DIR/redact.json and returns the Redactor it describes:
// nil, nil when the file does not exist (the built-in rules apply). Errors
// wrap ErrBadConfig and start with the file's path.
func LoadConfig(dir string) (*Redactor, error) {
	path := dir + string(os.PathSeparator) + ConfigFile
	// A FIFO or a device planted under the config's name must not hang
	// or flood a hook: readlimit.Small reads only a regular file, and one
	// over maxConfig no further.
	data, err := readlimit.Small(path, maxConfig)
	if errors.Is(err, os.ErrNotExist) {
		// Only a name that is not there at all means "no config": a
		// symbolic link that leads nowhere is a config that cannot be
		// read, not a reason to drop the project's patterns unnoticed.
		if _, lerr := os.Lstat(path); errors.Is(lerr, os.ErrNotExist) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrBadConfig, err)
	}
	pats, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return New(pats)
}
