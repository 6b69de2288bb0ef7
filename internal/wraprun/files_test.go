package wraprun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/wraprun/files"
)

// tree writes files (path → contents) under a new directory.
func tree(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCap: past --max-files the wrapper refuses to start (before) or
// records the first files and says so (after).
func TestCap(t *testing.T) {
	tr := map[string]string{}
	for i := 0; i < 30; i++ {
		tr[fmt.Sprintf("gen/f%02d", i)] = fmt.Sprint(i)
	}
	dir := tree(t, tr)
	_, err := files.Take("--products", []string{"go.mod", "gen/**"}, dir, 10, false)
	var tm *files.TooManyFilesError
	if !errors.As(err, &tm) || tm.Glob != "gen/**" || tm.Max != 10 {
		t.Fatalf("got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `--products "gen/**": the globs match more than 10 files`) || !strings.Contains(msg, "--max-files") {
		t.Errorf("message %q", msg)
	}
	snap, err := files.Take("--products", []string{"gen/**"}, dir, 10, true)
	if err != nil || !snap.Truncated || len(snap.Files) != 10 {
		t.Fatalf("truncate: %v %+v", err, snap)
	}

	// Through Run: materials over the cap → not run, 125, nothing recorded.
	h := newHarness(t, "touch", "ran")
	h.opt.Cwd, h.opt.MaxFiles, h.opt.Materials = dir, 10, []string{"gen/*"}
	res := h.run()
	if res.ExitCode != ExitFailure || len(h.steps) != 0 || !strings.Contains(res.Err.Error(), "not run") {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the command ran")
	}
	// Products that grow past the cap while the command runs: recorded
	// truncated, with a message, and the command's exit status kept.
	h = newHarness(t, "sh", "-c", "mkdir out; for i in 1 2 3 4 5 6 7 8; do echo $i > out/$i; done; exit 4")
	h.opt.MaxFiles, h.opt.Products = 5, []string{"out/**"}
	if res := h.run(); res.ExitCode != 4 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	d := h.end()
	if v := d.Get("productsTruncated"); v == nil || v.Kind != strictjson.True {
		t.Errorf("productsTruncated missing: %s", show(d))
	}
	if len(d.Get("products").Items) != 5 || len(h.log) != 1 || !strings.Contains(h.log[0], "more than 5 files") {
		t.Errorf("products %s, log %q", show(d.Get("products")), h.log)
	}
}

// TestMaterialsAndProducts: on a small tree, the start step holds the
// materials' digests, the end step names new, changed, unchanged and
// removed products, and the outputs list the new and changed ones.
func TestMaterialsAndProducts(t *testing.T) {
	dir := tree(t, map[string]string{
		"src/main.go": "package main\n", "src/util.go": "package main // util\n",
		"out/stale.bin": "old", "out/keep.txt": "same", "out/edit.txt": "before",
	})
	script := "cat src/*.go > /dev/null; rm out/stale.bin; printf after > out/edit.txt; mkdir -p out/new; printf '\\000bin' > out/new/app"
	h := newHarness(t, "sh", "-c", script)
	h.opt.Cwd = dir
	h.opt.Materials = []string{"src/**/*.go"}
	h.opt.Products = []string{"out"}
	if res := h.run(); res.ExitCode != 0 {
		t.Fatalf("exit %d %q", res.ExitCode, h.log)
	}
	h.end()
	start, end := h.steps[0], h.steps[1]
	wantIn := []string{sum([]byte("package main\n")), sum([]byte("package main // util\n"))}
	if fmt.Sprint(start.Inputs) != fmt.Sprint(wantIn) || fmt.Sprint(end.Inputs) != fmt.Sprint(wantIn) {
		t.Errorf("inputs %v / %v, want %v", start.Inputs, end.Inputs, wantIn)
	}
	if got := show(start.Data.Get("materials")); got != `[{"bytes":13,"path":"src/main.go","sha256":"`+wantIn[0]+`"},{"bytes":21,"path":"src/util.go","sha256":"`+wantIn[1]+`"}]` {
		t.Errorf("materials %s", got)
	}
	want := `[` +
		`{"bytes":5,"change":"changed","path":"out/edit.txt","sha256":"` + sum([]byte("after")) + `","sha256Before":"` + sum([]byte("before")) + `"},` +
		`{"bytes":4,"change":"unchanged","path":"out/keep.txt","sha256":"` + sum([]byte("same")) + `"},` +
		`{"bytes":4,"change":"new","path":"out/new/app","sha256":"` + sum([]byte("\x00bin")) + `"},` +
		`{"change":"removed","path":"out/stale.bin","sha256Before":"` + sum([]byte("old")) + `"}]`
	if got := show(end.Data.Get("products")); got != want {
		t.Errorf("products\n got %s\nwant %s", got, want)
	}
	wantOut := []string{sum(nil), sum(nil), sum([]byte("after")), sum([]byte("\x00bin"))}
	if fmt.Sprint(end.Outputs) != fmt.Sprint(wantOut) {
		t.Errorf("outputs %v, want %v", end.Outputs, wantOut)
	}
}

func TestBadGlob(t *testing.T) {
	if files.ValidGlob("src/[a") || !files.ValidGlob("src/**/*.{go,mod}") {
		t.Fatal("ValidGlob")
	}
	h := newHarness(t, "true")
	h.opt.Products = []string{"src/[a"}
	if res := h.run(); res.ExitCode != ExitFailure || len(h.steps) != 0 {
		t.Fatalf("%+v", res)
	}
}
