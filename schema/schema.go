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
