package sealmark

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteReadClear: a mark names the record by its absolute path, reads
// back, and goes.
func TestWriteReadClear(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := Write(dir, Mark{Session: "s1", Record: "elsewhere/s1.json", Steps: 3, At: "2026-05-01T10:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	m, err := Read(Path(dir, "s1"))
	if err != nil || m.Record != filepath.Join(wd, "elsewhere/s1.json") || m.Steps != 3 || m.Session != "s1" {
		t.Fatalf("%+v %v", m, err)
	}
	if err := Clear(dir, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Path(dir, "s1")); !os.IsNotExist(err) {
		t.Fatalf("mark still there: %v", err)
	}
	if err := Clear(dir, "s1"); err != nil {
		t.Fatalf("clearing no mark: %v", err)
	}
}

// FuzzRead: any file gives a mark or an error, never a panic; a mark
// always names a record.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"session":"s1","record":"/r/s1.json","steps":3,"at":"2026-05-01T10:00:00Z"}`))
	f.Add([]byte(`{"record":""}`))
	f.Add([]byte(`[]`))
	f.Add([]byte("\xff"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "x.sealed")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Read(p)
		if err == nil && m.Record == "" {
			t.Fatal("a mark without a record")
		}
	})
}
