package record

import "github.com/logbook-project/logbook/internal/record/shape"

// CheckStep checks one step's JSON text as the verifier would
// (shape.CheckStep).
func CheckStep(text []byte) string { return shape.CheckStep(text) }
