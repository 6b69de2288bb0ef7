// Package ostest holds the operating-system calls the tests make whose
// form differs by platform (a FIFO, a non-blocking file lock, the
// process's CPU time), so that every test file compiles, and go vet
// checks it, for each platform a release ships (.ci/run). The suite runs
// on Linux; what is only compiled elsewhere is in docs/testing.md.
package ostest
