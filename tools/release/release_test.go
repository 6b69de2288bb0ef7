package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
)

// TestReproducible builds a release of this checkout's commit twice, for
// the machine's own platform and with record-step alone (the flags are
// those of every command; this keeps the test to seconds), each from its
// own clone in its own folder,
// and wants the same bytes: the archive, SHA256SUMS and its signature.
// It then checks what a user checks: the signature with openssl (as
// docs/release.md tells), the sums with verify, an archive entry's owner
// and time, and that a binary from the archive names the tag as its
// version. (Both builds share the go build cache, so the second compiles
// nothing: what is compared is what this tool decides — the flags, the
// VCS stamp, the link, the archive and the sums. That the compiler's
// output depends only on its inputs is Go's own guarantee.)
func TestReproducible(t *testing.T) {
	root, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		t.Fatal(err)
	}
	// A clone to tag, so that the test never adds a tag to the checkout.
	repo := filepath.Join(t.TempDir(), "repo")
	if _, err := git(root, "clone", "--quiet", "--no-checkout", "--", ".", repo); err != nil {
		t.Fatal(err)
	}
	const tag = "v0.0.0-reproducible"
	if _, err := git(repo, "tag", tag, "HEAD"); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "release.key")
	if err := keys.WriteNew(keyFile); err != nil {
		t.Fatal(err)
	}
	priv, err := keys.ReadPrivate("-key", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	target := runtime.GOOS + "/" + runtime.GOARCH
	var outs [2]string
	var log bytes.Buffer
	for i := range outs {
		outs[i] = filepath.Join(t.TempDir(), "dist", tag)
		r := Release{Repo: repo, Tag: tag, Out: outs[i], Targets: []string{target}, Packages: []string{"./cmd/record-step"}, Key: priv, Log: &log}
		if err := r.Build(); err != nil {
			t.Fatalf("build %d: %v\n%s", i+1, err, log.Bytes())
		}
	}
	archive := "logbook-" + tag + "-" + runtime.GOOS + "-" + runtime.GOARCH + ".tar.gz"
	if runtime.GOOS == "windows" {
		archive = strings.TrimSuffix(archive, ".tar.gz") + ".zip"
	}
	for _, name := range []string{archive, "SHA256SUMS", "SHA256SUMS.sig"} {
		a, err1 := os.ReadFile(filepath.Join(outs[0], name))
		b, err2 := os.ReadFile(filepath.Join(outs[1], name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds of %s (%d and %d bytes)", name, tag, len(a), len(b))
		}
	}
	sums, _ := os.ReadFile(filepath.Join(outs[0], "SHA256SUMS"))
	t.Logf("two builds, one SHA256SUMS:\n%s", sums)

	// The check docs/release.md gives a user, with nothing of logbook's.
	openssl := exec.Command("openssl", "pkeyutl", "-verify", "-pubin", "-inkey", keyFile+".pub", "-rawin",
		"-in", filepath.Join(outs[0], "SHA256SUMS"), "-sigfile", filepath.Join(outs[0], "SHA256SUMS.sig"))
	if out, err := openssl.CombinedOutput(); err != nil {
		t.Errorf("openssl pkeyutl -verify: %v\n%s", err, out)
	}
	if _, err := Verify(outs[0], keyFile+".pub"); err != nil {
		t.Error(err)
	}
	// A changed archive is refused.
	f := filepath.Join(outs[1], archive)
	b, _ := os.ReadFile(f)
	b[len(b)/2] ^= 1
	os.WriteFile(f, b, 0o644)
	if _, err := Verify(outs[1], keyFile+".pub"); err == nil || !strings.Contains(err.Error(), archive) {
		t.Errorf("verify of a changed archive: %v", err)
	}

	if runtime.GOOS == "windows" {
		return
	}
	epoch, _ := git(repo, "log", "-1", "--format=%ct", tag)
	bin := t.TempDir()
	n := untar(t, filepath.Join(outs[0], archive), bin, epoch)
	if n != 2 { // record-step, README.md
		t.Errorf("%d files in %s", n, archive)
	}
	top := strings.TrimSuffix(archive, ".tar.gz")
	out, err := exec.Command(filepath.Join(bin, top, "bin", "record-step"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "record-step "+tag+" (") || strings.Contains(string(out), "modified") {
		t.Errorf("record-step --version from the archive: %v %q (want the tag, an unmodified revision)", err, out)
	}
}

// untar extracts a release archive into dir and checks each entry's owner
// and time; it returns the number of files.
func untar(t *testing.T, archive, dir, epoch string) int {
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != mustAtoi(t, epoch) {
			t.Errorf("%s: owner %d:%d (%q:%q), time %s; want 0:0 and the commit's time", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime.Format(time.RFC3339))
		}
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(p, 0o755)
			continue
		}
		b, _ := io.ReadAll(tr)
		if err := os.WriteFile(p, b, os.FileMode(h.Mode)); err != nil {
			t.Fatal(err)
		}
		n++
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
