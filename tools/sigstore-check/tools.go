//go:build tools

// Package main's tools.go pins cosign's command in this module's go.mod,
// so that `go build github.com/sigstore/cosign/v3/cmd/cosign` here
// builds the version named there.
package main

import _ "github.com/sigstore/cosign/v3/cmd/cosign"
