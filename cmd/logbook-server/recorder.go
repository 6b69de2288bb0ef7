package main

import "github.com/logbook-project/logbook/internal/journal"

// recorderDesc is this program as session.recorder; nil when the
// executable could not be hashed (the sessions then name none).
type recorderDesc journal.Recorder

func (r *recorderDesc) journal() *journal.Recorder { return (*journal.Recorder)(r) }
