// Package web holds the in-browser checker's files, embedded so that
// logbook-server can serve the page at GET / (the page itself needs no
// server: it also works from file://).
package web

import "embed"

// Files are the page and its scripts and style.
//
//go:embed *.html *.css js/*.js console/*.css console/*.js
var Files embed.FS
