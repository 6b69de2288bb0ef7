//go:build !linux

package durable

// renameNoReplace: without renameat2, an Lstat just before a rename.
func renameNoReplace(old, new string) error { return checkThenRename(old, new) }
