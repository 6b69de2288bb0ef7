package main

import "github.com/logbook-project/logbook/internal/format"

// recorderDesc is this program as session.recorder; nil when the
// executable could not be hashed (the sessions then name none).
type recorderDesc format.Recorder

func (r *recorderDesc) journal() *format.Recorder { return (*format.Recorder)(r) }
