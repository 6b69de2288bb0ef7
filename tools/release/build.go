package main

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Release is one build of TAG into Out.
type Release struct {
	Repo, Tag, Out string
	Targets        []string // GOOS/GOARCH
	Packages       []string // what to build; nil: ./cmd/..., every command
	Key            ed25519.PrivateKey
	Log            io.Writer
}

// Build clones Tag's commit, builds every target's archive into Out, and
// writes SHA256SUMS and its signature. Out must not exist: a release is
// never mixed with an older one's files.
func (r *Release) Build() error {
	if _, err := os.Lstat(r.Out); err == nil {
		return fmt.Errorf("%s exists: a release goes into a new folder", r.Out)
	}
	commit, err := git(r.Repo, "rev-parse", "--verify", "--end-of-options", r.Tag+"^{commit}")
	if err != nil {
		return fmt.Errorf("tag %s: %v", r.Tag, err)
	}
	epoch, err := git(r.Repo, "log", "-1", "--format=%ct", commit)
	if err != nil {
		return err
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return fmt.Errorf("commit time %q: %v", epoch, err)
	}
	mtime := time.Unix(sec, 0).UTC()

	work, err := os.MkdirTemp("", "logbook-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "src")
	if _, err := git(r.Repo, "clone", "--quiet", "--no-checkout", "--", ".", src); err != nil {
		return err
	}
	if _, err := git(src, "checkout", "--quiet", "--detach", commit); err != nil {
		return err
	}
	gover, err := goCmd(src, nil, "env", "GOVERSION")
	if err != nil {
		return err
	}
	fmt.Fprintf(r.Log, "release %s: commit %s, SOURCE_DATE_EPOCH=%d (%s), %s\n", r.Tag, commit, sec, mtime.Format(time.RFC3339), gover)

	if err := os.MkdirAll(r.Out, 0o755); err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		return err
	}
	var archives []string
	for _, t := range r.Targets {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", t)
		}
		name := "logbook-" + r.Tag + "-" + goos + "-" + goarch
		bin := filepath.Join(work, "bin", goos+"-"+goarch)
		fmt.Fprintf(r.Log, "release %s: building %s\n", r.Tag, t)
		pkgs := r.Packages
		if pkgs == nil {
			pkgs = []string{"./cmd/..."}
		}
		args := append([]string{"build", "-trimpath", "-buildvcs=true", "-ldflags=-buildid=", "-o", bin + string(filepath.Separator)}, pkgs...)
		if _, err := goCmd(src, buildEnv(goos, goarch), args...); err != nil {
			return fmt.Errorf("%s: %v", t, err)
		}
		files, err := binaries(bin)
		if err != nil {
			return err
		}
		files = append(files, entry{Name: "README.md", Data: readme, Mode: 0o644})
		archive := name + ".tar.gz"
		if goos == "windows" {
			archive = name + ".zip"
		}
		f, err := os.Create(filepath.Join(r.Out, archive))
		if err != nil {
			return err
		}
		if goos == "windows" {
			err = writeZip(f, name, files, mtime)
		} else {
			err = writeTarGz(f, name, files, mtime)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %v", archive, err)
		}
		archives = append(archives, archive)
	}
	sort.Strings(archives)
	sums, err := sumFiles(r.Out, archives)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Out, "SHA256SUMS"), sums, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.Out, "SHA256SUMS.sig"), ed25519.Sign(r.Key, sums), 0o644)
}

// buildEnv is the environment of every build: the target, no cgo (no C
// toolchain, no host libraries in the binary), and the baseline of each
// architecture, whatever the builder's environment says.
func buildEnv(goos, goarch string) []string {
	return []string{
		"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0",
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=-mod=readonly", "GOEXPERIMENT=",
		"GOTOOLCHAIN=local",
	}
}

// binaries reads the built commands in dir, each an executable entry in
// the archive's bin/.
func binaries(dir string) ([]entry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, entry{Name: "bin/" + e.Name(), Data: b, Mode: 0o755})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no command was built into %s", dir)
	}
	return out, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return output(cmd)
}

// goCmd runs the go command that runs this tool (or go on PATH) in dir.
func goCmd(dir string, env []string, args ...string) (string, error) {
	gobin := "go"
	if root := os.Getenv("GOROOT"); root != "" {
		gobin = filepath.Join(root, "bin", "go")
	}
	cmd := exec.Command(gobin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return output(cmd)
}

func output(cmd *exec.Cmd) (string, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}
