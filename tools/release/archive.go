package main

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"io"
	"io/fs"
	"path"
	"sort"
	"time"
)

// entry is one file of an archive, below its top folder.
type entry struct {
	Name string
	Data []byte
	Mode fs.FileMode
}

// writeTarGz writes files under top/ as a gzipped tar whose bytes depend on
// nothing but the files and mtime: entries in name order, owner 0:0 with
// no user or group names, one time for all, and a gzip header with no
// name and no time.
func writeTarGz(w io.Writer, top string, files []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode fs.FileMode, size int64, typ byte) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: int64(mode), Size: size, ModTime: mtime, Format: tar.FormatPAX}
	}
	for _, d := range dirs(top, files) {
		if err := tw.WriteHeader(hdr(d, 0o755, 0, tar.TypeDir)); err != nil {
			return err
		}
	}
	for _, f := range sorted(files) {
		if err := tw.WriteHeader(hdr(top+"/"+f.Name, f.Mode, int64(len(f.Data)), tar.TypeReg)); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes files under top/ as a zip, as writeTarGz does a tar:
// name order, one time (UTC), the Unix modes in the external attributes.
func writeZip(w io.Writer, top string, files []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, d := range dirs(top, files) {
		h := &zip.FileHeader{Name: d, Modified: mtime}
		h.SetMode(fs.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return err
		}
	}
	for _, f := range sorted(files) {
		h := &zip.FileHeader{Name: top + "/" + f.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.Mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// dirs is top/ and each folder below it that files name, in name order,
// each ending in a slash.
func dirs(top string, files []entry) []string {
	seen := map[string]bool{top + "/": true}
	for _, f := range files {
		for d := path.Dir(f.Name); d != "."; d = path.Dir(d) {
			seen[top+"/"+d+"/"] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func sorted(files []entry) []entry {
	out := append([]entry(nil), files...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
