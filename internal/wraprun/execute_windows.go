package wraprun

import "os"

// Supported is false: the wrapper's way of running a command (pipes
// polled with poll(2), signals passed on, wait4's status) is Unix's, so
// on Windows Run refuses with ErrUnsupported before it records anything
// and the command does not run.
const Supported = false

// Forwarded lists the signals the wrapper passes on: none on Windows.
var Forwarded []os.Signal

// SignalName is sig's name.
func SignalName(sig os.Signal) string { return sig.String() }

// FromTerminal is false on Windows.
func FromTerminal(sig os.Signal) bool { return false }

func execute(opt Options, f *facts) (int, bool) { return ExitFailure, false }
