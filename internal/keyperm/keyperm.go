// Package keyperm tells whether others than its owner can read or write a
// private key's file: whoever reads a key signs as its owner. Unix checks
// the mode bits (group or other permission); Windows has no mode bits (Go
// reports 0666 or 0444 for every file) and checks the file's ACL instead:
// an allowing entry for anyone but the file's owner, SYSTEM and the
// Administrators group (who can read every file anyway) exposes the key.
package keyperm
