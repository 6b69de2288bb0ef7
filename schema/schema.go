// Package schema embeds the JSON Schema (2020-12) of a record's shape
// (spec §4), so every binary checks records against the same document that
// ships in the repository.
package schema

import _ "embed"

// Record is the text of record.schema.json.
//
//go:embed record.schema.json
var Record []byte

// RecordURL is the schema's $id.
const RecordURL = "https://logbook-project.github.io/schema/record.schema.json"

// Redact is the text of redact.schema.json: a project's redaction
// patterns file (DIR/redact.json).
//
//go:embed redact.schema.json
var Redact []byte

// RedactURL is that schema's $id.
const RedactURL = "https://logbook-project.github.io/schema/redact.schema.json"
