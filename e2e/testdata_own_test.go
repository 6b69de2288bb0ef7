package e2e

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestTestdataIsOwn: no file in any testdata/ folder of the repository is
// a copy of a file in the shared data, and none repeats a line of one
// (40 bytes or more besides digests, base64 and PEM armour): the
// fixtures are the project's own (conformance: needs the shared data to
// compare with).
func TestTestdataIsOwn(t *testing.T) {
	t.Parallel()
	root := corpora.Require(t, "corpora", "testdata/ against the shared data (no copies)")
	root = filepath.Dir(root)
	sums := map[[32]byte]string{}
	var shared [][]byte
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sums[sha256.Sum256(b)] = p
		shared = append(shared, b)
		return nil
	})
	all := bytes.Join(shared, []byte{0})
	plain := regexp.MustCompile(`^[A-Za-z0-9+/=]+$|^-----(BEGIN|END) `)
	digests := regexp.MustCompile(`[0-9a-fA-F]{32,}`) // the same digest (of "", say) may well recur
	n := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/testdata/") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if src, ok := sums[sha256.Sum256(b)]; ok && len(b) > 0 {
			t.Errorf("%s is a copy of %s", p, src)
			return nil
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(bytes.TrimSpace(digests.ReplaceAll(line, nil))) >= 40 && !plain.Match(line) && bytes.Contains(all, line) {
				t.Errorf("%s repeats a line of the shared data: %.80q", p, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("checked only %d testdata files", n)
	}
}
