// Package e2e drives the built binaries the way a harness and a reviewer
// would: real hook payloads in, a sealed record out, tampered copies
// refused with the right codes.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var bin string // directory holding the built commands

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "logbook-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	build := exec.Command("go", "build", "-o", bin, "../cmd/...")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	// The policy deciders the hooks start listen in a directory of the
	// run's own, not the user's; any left at the end are stopped.
	socks, err := os.MkdirTemp("", "lbpd")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("LOGBOOK_POLICYD_DIR", socks)
	// The commands run here with the package's directory as their cwd,
	// which is inside this repository's work tree: a session recorded
	// there would gain its git facts (docs/commits.md) and the tests'
	// step counts would depend on where the checkout lives. Git looks no
	// higher than the checkout's root for them; the tests of the commit
	// binding make repositories of their own.
	if root, err := filepath.Abs(".."); err == nil {
		os.Setenv("GIT_CEILING_DIRECTORIES", root)
	}
	code := m.Run()
	if left := killDeciders([]string{socks, bin}, 10*time.Second); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "policy deciders still running after SIGKILL:", left)
	}
	os.RemoveAll(socks)
	os.RemoveAll(dir)
	os.Exit(code)
}

// session is one replayable hook-event sequence.
type session struct {
	name   string
	events [][]byte
	times  []string // may be nil: a synthetic clock is used
}

func loadSession(t *testing.T, events, times string) session {
	s := session{name: filepath.Base(events)}
	s.events = readLines(t, events)
	if times != "" {
		for _, l := range readLines(t, times) {
			s.times = append(s.times, string(l))
		}
		if len(s.times) != len(s.events) {
			t.Fatalf("%s: %d events but %d times", events, len(s.events), len(s.times))
		}
	}
	return s
}

func readLines(t *testing.T, path string) [][]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			out = append(out, append([]byte(nil), l...))
		}
	}
	return out
}

func (s session) at(i int) string {
	if s.times != nil {
		return s.times[i]
	}
	return fmt.Sprintf("2026-05-01T12:%02d:%02d.%03dZ", i/3600%60, i/60%60, i%1000)
}

// recordStep runs record-step on one payload; it must print nothing on
// stdout and exit 0.
func recordStep(t *testing.T, dir, at string, payload []byte, extra ...string) (stderr string) {
	cmd := exec.Command(filepath.Join(bin, "record-step"), extra...)
	cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_NOW="+at)
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Errorf("record-step: %v (%s)", err, errb.String())
	}
	if out.Len() > 0 {
		t.Errorf("record-step wrote to stdout: %q", out.String())
	}
	return errb.String()
}

// replay feeds the events through record-step, in order or from several
// concurrent replayers (each takes every n-th event).
func replay(t *testing.T, s session, dir string, workers int) {
	if workers <= 1 {
		for i, ev := range s.events {
			if e := recordStep(t, dir, s.at(i), ev); e != "" {
				t.Errorf("event %d: stderr %q", i, e)
			}
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(s.events); i += workers {
				recordStep(t, dir, s.at(i), s.events[i])
			}
		}(w)
	}
	wg.Wait()
}

type verdict struct {
	OK        bool    `json:"ok"`
	Code      *string `json:"code"`
	Detail    string  `json:"detail"`
	RecordID  *string `json:"recordId"`
	KeyID     *string `json:"keyId"`
	StepCount *int64  `json:"stepCount"`
	Gaps      *struct {
		UnfinishedToolCalls int `json:"unfinishedToolCalls"`
		DuplicatePreEvents  int `json:"duplicatePreEvents"`
		DuplicatePostEvents int `json:"duplicatePostEvents"`
		PostWithoutPre      int `json:"postWithoutPre"`
		MissingSessionStart int `json:"missingSessionStart"`
	} `json:"gaps"`
}

func (v verdict) code() string {
	if v.Code == nil {
		return ""
	}
	return *v.Code
}

// verify runs logbook-verify --json and checks that the exit status agrees
// with the verdict.
func verify(t *testing.T, record string, pubkeys ...string) verdict {
	args := []string{"--json"}
	for _, p := range pubkeys {
		args = append(args, "--pubkey", p)
	}
	cmd := exec.Command(filepath.Join(bin, "logbook-verify"), append(args, record)...)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var v verdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("verify --json output %q: %v", out, err)
	}
	if (code == 0) != v.OK || (code != 0 && code != 1) {
		t.Fatalf("exit %d disagrees with verdict %+v", code, v)
	}
	return v
}

func run(t *testing.T, env []string, name string, args ...string) string {
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// recordSteps parses a record with encoding/json: fine here, the verifier
// has already judged the bytes.
type recordFile struct {
	Session map[string]any `json:"session"`
	Steps   []struct {
		Seq     int            `json:"seq"`
		Kind    string         `json:"kind"`
		Summary string         `json:"summary"`
		Data    map[string]any `json:"data"`
		Inputs  []string       `json:"inputsSha256"`
	} `json:"steps"`
}

func readRecord(t *testing.T, path string) recordFile {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r recordFile
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
