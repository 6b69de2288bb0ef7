package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// ciCommitsInstall is the one step of docs/ci.md's range-check examples
// the test does not run (it would reach the network): the commands
// TestMain built are on PATH in its place.
const ciCommitsInstall = "go install github.com/logbook-project/logbook/cmd/logbook-verify@latest"

// ciCommitsExamples are the YAML blocks of docs/ci.md's "Checking a pull
// request's commits": the GitHub Actions workflow, then the GitLab CI job.
func ciCommitsExamples(t *testing.T) (github, gitlab string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## Checking a pull request's commits")
	if !ok {
		t.Fatal(`docs/ci.md has no "## Checking a pull request's commits"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 2 {
		t.Fatalf("%d yaml blocks in the section, want 2 (GitHub Actions, GitLab CI)", len(blocks))
	}
	return blocks[0][1], blocks[1][1]
}

// ciCommitsRepo is a team's repository as the runner sees it: upstream
// (a bare repository, origin) holds main, with the signers' key under
// both examples' paths, and a pull request's branch of two commits made
// in a recorded session, bound by git notes pushed with it; the work
// tree is a full clone checked out at the pull request's head, the
// session's record in records/ (where both examples take it). It returns
// the work tree and the record's path.
func ciCommitsRepo(t *testing.T) (work, record string) {
	t.Helper()
	root := t.TempDir()
	upstream, dev, home := filepath.Join(root, "upstream.git"), filepath.Join(root, "dev"), filepath.Join(root, "home")
	work = filepath.Join(root, "work")
	env := baseEnv("HOME="+home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "LOGBOOK_NOW=2026-05-01T10:00:00Z",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	run := func(dir, stdin, prog string, args ...string) string {
		t.Helper()
		cmd := exec.Command(prog, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(prog), args, err, out)
		}
		return string(out)
	}
	os.MkdirAll(dev, 0o755)
	run(root, "", "git", "init", "-q", "--bare", "-b", "main", upstream)
	run(dev, "", "git", "init", "-q", "-b", "main")
	key, pub := newKey(t, root, "signer")
	for _, p := range []string{".github/logbook-signers.pub", "ci/logbook-signers.pub"} {
		copyFile(t, pub, filepath.Join(dev, p))
	}
	run(dev, "", "git", "add", "-A")
	run(dev, "", "git", "commit", "-q", "-m", "the team's signers")
	run(dev, "", filepath.Join(bin, "record-step"), "install", "--harness", "claude-code", "--project", dev, "--bin", bin, "--no-key", "--no-guard")
	run(dev, "", "git", "add", "-A")
	run(dev, "", "git", "commit", "-q", "-m", "logbook hooks")
	run(dev, "", "git", "remote", "add", "origin", upstream)
	run(dev, "", "git", "push", "-q", "origin", "main")
	run(dev, "", "git", "checkout", "-q", "-b", "feature")
	run(dev, `{"session_id":"pr-1","cwd":"`+dev+`","hook_event_name":"SessionStart","source":"startup"}`, filepath.Join(dev, ".logbook", "bin", "record-step"))
	for _, f := range []string{"a.go", "b.go"} {
		os.WriteFile(filepath.Join(dev, f), []byte("package x\n"), 0o644)
		run(dev, "", "git", "add", f)
		if out := run(dev, "", "git", "commit", "-q", "-m", f); !strings.Contains(out, "named in session pr-1") {
			t.Fatalf("commit %s: %q", f, out)
		}
	}
	if out := run(dev, "", filepath.Join(bin, "logbook-seal"), "--dir", filepath.Join(dev, ".logbook"), "--session", "pr-1", "--key", key); !strings.Contains(out, "2 commit(s) bound") {
		t.Fatalf("seal: %s", out)
	}
	run(dev, "", "git", "push", "-q", "origin", "feature", "refs/notes/logbook")
	run(root, "", "git", "clone", "-q", upstream, work)
	run(work, "", "git", "checkout", "-q", "feature")
	record = filepath.Join(work, "records", "pr-1.record.json")
	copyFile(t, filepath.Join(dev, ".logbook", "pr-1.record.json"), record)
	return work, record
}

// ciCommitsEnv is a runner's environment: no logbook variable of the
// test's, the built commands first on PATH.
func ciCommitsEnv(t *testing.T, extra ...string) []string {
	env := baseEnv(append([]string{"HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}, extra...)...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return env
}

// TestCICommitsExamples runs docs/ci.md's two range-check examples, their
// shell steps taken from the YAML in the doc, in order, as the runner
// would (GitHub's `run` steps with their `env`, `${{ github.base_ref }}`
// given; GitLab's `script` with its variables): on a pull request of two
// recorded commits each passes and prints both RECORDED, and with the
// record re-signed by another key each fails, SIGNER_NOT_TRUSTED. A wrong
// flag or path in the doc fails the test.
func TestCICommitsExamples(t *testing.T) {
	t.Parallel()
	github, gitlab := ciCommitsExamples(t)

	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]any    `yaml:"with"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(github), &wf); err != nil {
		t.Fatalf("the GitHub Actions example: %v", err)
	}
	var gl map[string]struct {
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
	}
	if err := yaml.Unmarshal([]byte(gitlab), &gl); err != nil {
		t.Fatalf("the GitLab CI example: %v", err)
	}
	type example struct {
		name  string
		steps []string
		env   [][]string // each step's own
	}
	var examples []example
	for name, job := range wf.Jobs {
		e := example{name: "GitHub Actions job " + name}
		for _, st := range job.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@"):
				if st.With["fetch-depth"] != 0 {
					t.Errorf("the GitHub example checks out with fetch-depth %v: the range check needs the whole history (SHALLOW_CLONE)", st.With["fetch-depth"])
				}
			case st.Uses != "":
			case strings.TrimSpace(st.Run) == ciCommitsInstall:
			default:
				var env []string
				for k, v := range st.Env {
					env = append(env, k+"="+strings.ReplaceAll(v, "${{ github.base_ref }}", "main"))
				}
				e.steps, e.env = append(e.steps, st.Run), append(e.env, env)
			}
		}
		examples = append(examples, e)
	}
	for name, job := range gl {
		e := example{name: "GitLab CI job " + name}
		if job.Variables["GIT_DEPTH"] != "0" {
			t.Errorf("the GitLab example's GIT_DEPTH is %q: the range check needs the whole history", job.Variables["GIT_DEPTH"])
		}
		for _, s := range job.Script {
			if strings.TrimSpace(s) != ciCommitsInstall {
				e.steps, e.env = append(e.steps, s), append(e.env, []string{"CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main"})
			}
		}
		examples = append(examples, e)
	}
	if len(examples) != 2 {
		t.Fatalf("%d jobs in the examples, want 2", len(examples))
	}
	for _, e := range examples {
		if !strings.Contains(strings.Join(e.steps, "\n"), "logbook-verify --commits") {
			t.Errorf("%s runs no logbook-verify --commits", e.name)
		}
		runAll := func(work string) (bool, string) {
			var all strings.Builder
			for i, s := range e.steps {
				code, out := shell(t, work, ciCommitsEnv(t, append(e.env[i], "RUNNER_TEMP="+t.TempDir())...), []string{"bash", "-e"}, s)
				all.WriteString(out)
				if code != 0 {
					return false, all.String()
				}
			}
			return true, all.String()
		}
		work, record := ciCommitsRepo(t)
		if ok, out := runAll(work); !ok || strings.Count(out, " RECORDED made in session pr-1") != 2 {
			t.Errorf("%s on a recorded pull request: passed=%v\n%s", e.name, ok, out)
		}
		// Re-signed by a key the team does not pin.
		other, _ := newKey(t, t.TempDir(), "other")
		os.WriteFile(record, resignWith(t, record, other), 0o644)
		if ok, out := runAll(work); ok || !strings.Contains(out, "SIGNER_NOT_TRUSTED") {
			t.Errorf("%s with the record re-signed: passed=%v\n%s", e.name, ok, out)
		}
	}
}

// resignWith is the record at path signed again with the key in keyFile.
func resignWith(t *testing.T, path, keyFile string) []byte {
	t.Helper()
	rec, _ := os.ReadFile(path)
	pem, _ := os.ReadFile(keyFile)
	priv, err := keys.ParsePrivateKeyPEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tamper.Apply(rec, tamper.Resign(priv))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
