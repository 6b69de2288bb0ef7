package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRecordStepStaysLean: record-step runs on every tool call, so it
// links neither X.509 nor networking (the trust checks and the
// time-stamping client live in packages only the sealer and the verifier
// import). Nor golang.org/x/sys/unix or filippo.io/edwards25519 (the
// point package; its field arithmetic is allowed): both do work at package
// start-up, which would run on every event (TestRecordStepInitStaysLean).
func TestRecordStepStaysLean(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "../cmd/record-step").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		// cel.dev and protobuf: the policy gate's CEL (about 3 ms of
		// start-up) is in logbook-policy, which record-step --policy execs;
		// so is the rules' shell parser (mvdan.cc/sh).
		if dep == "crypto/x509" || dep == "net" || strings.HasPrefix(dep, "net/") || strings.Contains(dep, "digitorus") ||
			strings.HasPrefix(dep, "cel.dev/") || strings.HasPrefix(dep, "google.golang.org/protobuf") || strings.HasPrefix(dep, "mvdan.cc/") ||
			dep == "golang.org/x/sys/unix" {
			t.Errorf("record-step depends on %s", dep)
		}
	}
}

// recordStepInitAllocs caps, per package of this module, the allocations
// its package start-up makes in record-step (GODEBUG=inittrace=1). Every
// process pays them, and on this project's VMs each first touch of a page
// costs more than the work itself (docs/performance.md, "record-step";
// the measurements are in its history). A package missing here may do
// no start-up work that allocates: what only some paths need is made on
// first use (sync.Once, a package-level sync.OnceValue itself allocates
// at start-up).
var recordStepInitAllocs = map[string]int{
	"internal/hookevent/kinds": 7, // the harnesses' event tables
	"internal/hookevent":       2,
	"internal/chain":           1,
}

// edwardsInitAllocs is filippo.io/edwards25519's own start-up (v1.1.0).
const edwardsInitAllocs = 5

// initLine is one line of GODEBUG=inittrace=1's output.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestRecordStepInitStaysLean: a plain event (no --server, no --policy)
// runs no package start-up that allocates beyond recordStepInitAllocs,
// and none at all in the packages only other paths need (the server
// key's Ed25519, the decider's client, the server's answers) or in
// x/sys/unix. filippo.io/edwards25519 decodes its identity and base point
// at start-up (5 allocations): the price of checking --server-key's
// signatures with a well-kept library rather than a group law of our
// own; edwardsInitAllocs holds it there. Counted, not timed: the
// allocations are the same on a loaded machine.
func TestRecordStepInitStaysLean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "record-step"))
	cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_NOW=2026-05-02T00:00:00Z", "GODEBUG=inittrace=1")
	cmd.Stdin = bytes.NewReader(benchPayload)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.Bytes())
	}
	const module = "github.com/logbook-project/logbook/"
	never := []string{"golang.org/x/sys/unix", module + "internal/edverify",
		module + "internal/orgpolicy/decider", module + "internal/hookpost"}
	seen := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen++
		pkg := m[1]
		allocs, _ := strconv.Atoi(m[3])
		for _, p := range never {
			if pkg == p || strings.HasPrefix(pkg, p+"/") {
				t.Errorf("%s: package start-up on a plain event (%s bytes, %d allocs)", pkg, m[2], allocs)
			}
		}
		if pkg == "filippo.io/edwards25519" && allocs > edwardsInitAllocs {
			t.Errorf("%s: package start-up makes %d allocations on every event, it made %d", pkg, allocs, edwardsInitAllocs)
		}
		if own, ok := strings.CutPrefix(pkg, module); ok && allocs > recordStepInitAllocs[own] {
			t.Errorf("%s: package start-up makes %d allocations on every event, at most %d allowed: make what only some paths need on first use", own, allocs, recordStepInitAllocs[own])
		}
	}
	if seen < 10 {
		t.Fatalf("only %d init lines in GODEBUG=inittrace=1's output: %s", seen, stderr.Bytes())
	}
}
