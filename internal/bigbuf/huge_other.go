//go:build !linux

package bigbuf

func adviseHuge([]byte) {}
