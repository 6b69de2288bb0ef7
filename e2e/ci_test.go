package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The CI configurations in hooks/ci are run here as a runner would run
// them: their shell steps, in order, with the runner's environment files,
// on a local workspace. Nothing reaches the network: LOGBOOK_SRC points at
// this repository and LOGBOOK_BIN at the commands TestMain built.

var repoRoot, _ = filepath.Abs("..")

// ciWorkspace is a fresh checkout of a team's repository: the pinned
// public key is committed, the signing key is a secret held elsewhere.
type ciWorkspace struct {
	dir      string
	key      string // the secret's PEM text
	keyFile  string
	bin      string // prebuilt logbook commands
	artifact string // where uploaded artifacts go
}

func newWorkspace(t *testing.T) *ciWorkspace {
	t.Helper()
	root := t.TempDir()
	w := &ciWorkspace{dir: filepath.Join(root, "repo"), bin: filepath.Join(root, "bin"), artifact: filepath.Join(root, "artifact")}
	os.MkdirAll(w.dir, 0o755)
	var pub string
	w.keyFile, pub = newKey(t, root, "signing")
	b, _ := os.ReadFile(w.keyFile)
	w.key = string(b)
	copyFile(t, pub, filepath.Join(w.dir, "logbook.pub"))
	w.bin = copyBin(t, filepath.Join(root, "bin"))
	return w
}

// copyBin copies the built commands, as a runner's cache would hold them.
func copyBin(t *testing.T, dst string) string {
	os.MkdirAll(dst, 0o755)
	for _, c := range []string{"record-step", "logbook-wrap", "logbook-seal", "logbook-verify"} {
		copyFile(t, filepath.Join(bin, c), filepath.Join(dst, c))
		os.Chmod(filepath.Join(dst, c), 0o755)
	}
	return dst
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	// The copies are run: written as writeExe writes (ETXTBSY).
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// baseEnv is the test's environment without anything of logbook's or of a
// CI's, so a step sees only what its runner would give it.
func baseEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LOGBOOK_") || strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "CI_") || strings.HasPrefix(kv, "RUNNER_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// shell runs a script as a CI step does and returns its exit status and
// combined output.
func shell(t *testing.T, dir string, env []string, shellArgs []string, script string) (int, string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "step.sh")
	os.WriteFile(f, []byte(script), 0o644)
	cmd := exec.Command(shellArgs[0], append(shellArgs[1:], f)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// TestCISealAndVerifyScript: the plain scripts, as any CI would use them:
// source setup.sh (which builds the commands), wrap the job's commands,
// then seal-and-verify.sh. A tampered record, a record signed with another
// key, and missing settings fail the step.
func TestCISealAndVerifyScript(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	freshBin := filepath.Join(t.TempDir(), "fresh-bin") // setup.sh builds into it
	env := baseEnv("LOGBOOK_SRC="+repoRoot, "LOGBOOK_BIN="+freshBin, "TMPDIR="+t.TempDir())
	job := `set -e
. "$LOGBOOK_SRC/hooks/ci/setup.sh"
logbook-wrap -- sh -c 'echo compiling'
logbook-wrap --products 'dist/**' -- sh -c 'mkdir -p dist; echo app > dist/app'
logbook-wrap -- sh -c 'exit 1' || echo "tests failed: $?"
LOGBOOK_SIGNING_KEY="$SECRET" LOGBOOK_PUBKEY=logbook.pub LOGBOOK_GOAL="nightly build" "$LOGBOOK_BIN/seal-and-verify.sh"
`
	code, out := shell(t, w.dir, append(env, "SECRET="+w.key), []string{"sh"}, job)
	if code != 0 || !strings.Contains(out, "tests failed: 1") || !strings.Contains(out, "1 record(s) verified against logbook.pub") || !strings.Contains(out, "signer=pinned") {
		t.Fatalf("job exit %d:\n%s", code, out)
	}
	recs, _ := filepath.Glob(filepath.Join(w.dir, ".logbook", "ci-*.record.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	rec := readRecord(t, recs[0])
	if len(rec.Steps) != 6 || rec.Session["goal"] != "nightly build" || rec.Steps[5].Data["exitCode"] != float64(1) {
		t.Errorf("record: %d steps, session %v", len(rec.Steps), rec.Session)
	}

	verifyStep := func(extra ...string) (int, string) {
		return shell(t, w.dir, append(baseEnv("LOGBOOK_BIN="+freshBin, "LOGBOOK_DIR="+filepath.Join(w.dir, ".logbook")), extra...),
			[]string{"sh"}, `"$LOGBOOK_BIN/seal-and-verify.sh" verify`)
	}
	if code, out := verifyStep("LOGBOOK_PUBKEY=logbook.pub"); code != 0 {
		t.Fatalf("verify: %d %s", code, out)
	}
	// A tampered record fails the job.
	orig, _ := os.ReadFile(recs[0])
	os.WriteFile(recs[0], bytes.Replace(orig, []byte(`"exitCode":1`), []byte(`"exitCode":0`), 1), 0o644)
	if code, out := verifyStep("LOGBOOK_PUBKEY=logbook.pub"); code != 1 || !strings.Contains(out, "REFUSED CHAIN_BROKEN") {
		t.Errorf("tampered record: exit %d\n%s", code, out)
	}
	os.WriteFile(recs[0], orig, 0o644)
	// Signed with a key that is not the pinned one: refused.
	other, _ := newKey(t, t.TempDir(), "other")
	otherPEM, _ := os.ReadFile(other)
	code, out = shell(t, w.dir, baseEnv("LOGBOOK_BIN="+freshBin, "LOGBOOK_DIR=.logbook", "LOGBOOK_PUBKEY=logbook.pub", "LOGBOOK_SIGNING_KEY="+string(otherPEM)),
		[]string{"sh"}, `"$LOGBOOK_BIN/seal-and-verify.sh" seal`)
	if code != 1 || !strings.Contains(out, "REFUSED SIGNER_NOT_TRUSTED") {
		t.Errorf("other key: exit %d\n%s", code, out)
	}
	// A GitLab file variable: LOGBOOK_SIGNING_KEY holds a path.
	code, out = shell(t, w.dir, baseEnv("LOGBOOK_BIN="+freshBin, "LOGBOOK_DIR=.logbook", "LOGBOOK_PUBKEY=logbook.pub", "LOGBOOK_SIGNING_KEY="+w.keyFile),
		[]string{"sh"}, `"$LOGBOOK_BIN/seal-and-verify.sh" seal`)
	if code != 0 {
		t.Errorf("key file: exit %d\n%s", code, out)
	}
	// Missing settings, and nothing recorded.
	for _, c := range []struct {
		env  []string
		code int
		want string
	}{
		{[]string{"LOGBOOK_SIGNING_KEY=" + w.key}, 2, "LOGBOOK_PUBKEY must name"},
		{[]string{"LOGBOOK_PUBKEY=logbook.pub"}, 2, "LOGBOOK_SIGNING_KEY is empty"},
		{[]string{"LOGBOOK_PUBKEY=logbook.pub", "LOGBOOK_SIGNING_KEY=" + w.key, "LOGBOOK_DIR=" + t.TempDir()}, 1, "no sessions in"},
	} {
		code, out := shell(t, w.dir, baseEnv(append(c.env, "LOGBOOK_BIN="+freshBin)...), []string{"sh"}, `"$LOGBOOK_BIN/seal-and-verify.sh"`)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d\n%s", c.env, code, out)
		}
	}
}

// ---- GitHub Actions ----

type ghAction struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"runs"`
}

type ghStep struct {
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

// ghRunner keeps a job's state between steps: its environment, the
// $GITHUB_ENV and $GITHUB_PATH files, and whether a step failed.
type ghRunner struct {
	t         *testing.T
	w         *ciWorkspace
	env       map[string]string
	path      []string
	failed    bool
	uploaded  []string // artifact files
	temp      string
	actionDir string
}

func newGHRunner(t *testing.T, w *ciWorkspace, jobEnv ...string) *ghRunner {
	r := &ghRunner{t: t, w: w, env: map[string]string{}, temp: t.TempDir(), actionDir: filepath.Join(repoRoot, "hooks", "ci")}
	for _, kv := range baseEnv(jobEnv...) {
		k, v, _ := strings.Cut(kv, "=")
		r.env[k] = v
	}
	r.env["GITHUB_WORKSPACE"], r.env["RUNNER_TEMP"] = w.dir, r.temp
	r.env["GITHUB_RUN_ID"], r.env["GITHUB_RUN_ATTEMPT"], r.env["GITHUB_JOB"] = "4242", "1", "build"
	return r
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// expand fills ${{ … }} with the few contexts the action uses; any other
// expression fails the test, so the action and this runner stay in step.
func (r *ghRunner) expand(s string, inputs map[string]string) string {
	return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		e := ghExpr.FindStringSubmatch(m)[1]
		switch {
		case strings.HasPrefix(e, "inputs."):
			return inputs[strings.TrimPrefix(e, "inputs.")]
		case strings.HasPrefix(e, "env."):
			return r.env[strings.TrimPrefix(e, "env.")]
		case e == "github.action_path":
			return r.actionDir
		}
		r.t.Fatalf("expression %q is not understood by this test's runner", e)
		return ""
	})
}

// cond evaluates an if: made of always() and inputs.X == 'v' joined by &&.
// Without always(), a step runs only while no earlier step failed.
func (r *ghRunner) cond(expr string, inputs map[string]string) bool {
	if expr == "" {
		return !r.failed
	}
	ok, always := true, false
	for _, term := range strings.Split(expr, "&&") {
		term = strings.TrimSpace(term)
		if term == "always()" {
			always = true
			continue
		}
		k, v, found := strings.Cut(term, " == ")
		if !found || !strings.HasPrefix(k, "inputs.") || len(v) < 2 || v[0] != '\'' || v[len(v)-1] != '\'' {
			r.t.Fatalf("if: %q is not understood by this test's runner", expr)
		}
		ok = ok && inputs[strings.TrimPrefix(k, "inputs.")] == v[1:len(v)-1]
	}
	return ok && (always || !r.failed)
}

// run executes one shell step as the runner does (bash -eo pipefail, the
// environment files read back after the step).
func (r *ghRunner) run(name, script string, stepEnv map[string]string) (int, string) {
	envFile, pathFile := filepath.Join(r.temp, "env"), filepath.Join(r.temp, "path")
	os.WriteFile(envFile, nil, 0o644)
	os.WriteFile(pathFile, nil, 0o644)
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	for k, v := range stepEnv {
		env[k] = v
	}
	env["GITHUB_ENV"], env["GITHUB_PATH"], env["GITHUB_ACTION_PATH"] = envFile, pathFile, r.actionDir
	if len(r.path) > 0 {
		env["PATH"] = strings.Join(r.path, ":") + ":" + env["PATH"]
	}
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	sort.Strings(list)
	code, out := shell(r.t, r.w.dir, list, []string{"bash", "--noprofile", "--norc", "-eo", "pipefail"}, script)
	b, _ := os.ReadFile(envFile)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			r.env[k] = v
		}
	}
	b, _ = os.ReadFile(pathFile)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line != "" {
			r.path = append([]string{line}, r.path...)
		}
	}
	if code != 0 {
		r.failed = true
	}
	r.t.Logf("step %q: exit %d\n%s", name, code, out)
	return code, out
}

// action runs the composite action with the given inputs.
func (r *ghRunner) action(with map[string]string) string {
	raw, err := os.ReadFile(filepath.Join(r.actionDir, "action.yml"))
	if err != nil {
		r.t.Fatal(err)
	}
	var a ghAction
	if err := yaml.Unmarshal(raw, &a); err != nil {
		r.t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		r.t.Fatalf("runs.using %q", a.Runs.Using)
	}
	inputs := map[string]string{}
	for k, in := range a.Inputs {
		inputs[k] = in.Default
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			r.t.Fatalf("the action has no input %q", k)
		}
		inputs[k] = v
	}
	var all strings.Builder
	for _, s := range a.Runs.Steps {
		if !r.cond(s.If, inputs) {
			continue
		}
		switch {
		case s.Uses != "":
			if !strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
				r.t.Fatalf("step uses %s", s.Uses)
			}
			r.upload(r.expand(s.With["name"], inputs), r.expand(s.With["path"], inputs), s.With["if-no-files-found"])
		default:
			if s.Shell != "bash" {
				r.t.Fatalf("step %q: shell %q (composite run steps need one; bash is assumed here)", s.Name, s.Shell)
			}
			env := map[string]string{}
			for k, v := range s.Env {
				env[k] = r.expand(v, inputs)
			}
			if strings.Contains(s.Run, "${{") {
				r.t.Fatalf("step %q pastes an expression into its script", s.Name)
			}
			_, out := r.run(s.Name, s.Run, env)
			all.WriteString(out)
		}
	}
	return all.String()
}

// upload copies the files an upload-artifact step would keep.
func (r *ghRunner) upload(name, paths, ifNone string) {
	if !strings.HasPrefix(name, "logbook-") || len(name) <= len("logbook-") {
		r.t.Errorf("artifact name %q", name)
	}
	n := 0
	for _, p := range strings.Fields(paths) {
		m, _ := filepath.Glob(p)
		for _, f := range m {
			copyFile(r.t, f, filepath.Join(r.w.artifact, filepath.Base(f)))
			r.uploaded = append(r.uploaded, filepath.Base(f))
			n++
		}
	}
	if n == 0 && ifNone == "error" {
		r.failed = true
	}
}

// TestGitHubAction: a job that uses the action as its README shows —
// start, wrapped steps, seal with if: always() — ends green with a
// verified record uploaded, even when a wrapped test step failed.
func TestGitHubAction(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := newGHRunner(t, w, "LOGBOOK_BIN="+w.bin) // the commands cached from an earlier run
	delete(r.env, "LOGBOOK_BIN")                 // the action's setup must find them by itself…
	r.env["RUNNER_TEMP"] = filepath.Dir(w.bin)   // …in $RUNNER_TEMP/logbook-bin
	os.Rename(w.bin, filepath.Join(filepath.Dir(w.bin), "logbook-bin"))
	r.action(nil)
	if r.failed || r.env["LOGBOOK_SESSION"] == "" || !strings.HasPrefix(r.env["LOGBOOK_SESSION"], "gh-4242-1-build-") {
		t.Fatalf("start: failed=%v env %v", r.failed, r.env["LOGBOOK_SESSION"])
	}
	r.run("build", "logbook-wrap -- sh -c 'echo building'", nil)
	r.run("test", "logbook-wrap -- sh -c 'echo 2 tests failed; exit 1'", nil)
	if !r.failed {
		t.Fatal("the failing test step did not fail the job")
	}
	out := r.action(map[string]string{"mode": "seal", "pubkey": "logbook.pub", "signing-key": w.key, "goal": "CI"})
	if !strings.Contains(out, "1 record(s) verified against logbook.pub") {
		t.Fatalf("seal step:\n%s", out)
	}
	sort.Strings(r.uploaded)
	session := r.env["LOGBOOK_SESSION"]
	if fmt.Sprint(r.uploaded) != fmt.Sprintf("[%s.record.json %s.steps.jsonl]", session, session) {
		t.Errorf("uploaded %v", r.uploaded)
	}
	rec := readRecord(t, filepath.Join(w.artifact, session+".record.json"))
	if len(rec.Steps) != 4 || rec.Steps[3].Data["exitCode"] != float64(1) {
		t.Errorf("record steps %+v", rec.Steps)
	}

	// The same seal with another key than the pinned one fails the step.
	r2 := newGHRunner(t, w, "LOGBOOK_BIN="+filepath.Join(filepath.Dir(w.bin), "logbook-bin"), "LOGBOOK_DIR="+filepath.Join(w.dir, ".logbook"), "LOGBOOK_SESSION=x")
	other, _ := newKey(t, t.TempDir(), "other")
	otherPEM, _ := os.ReadFile(other)
	out = r2.action(map[string]string{"mode": "seal", "pubkey": "logbook.pub", "signing-key": string(otherPEM)})
	if !r2.failed || !strings.Contains(out, "REFUSED SIGNER_NOT_TRUSTED") {
		t.Errorf("another key: failed=%v\n%s", r2.failed, out)
	}
}

// ---- GitLab CI ----

type glJob struct {
	Extends      string            `yaml:"extends"`
	Stage        string            `yaml:"stage"`
	When         string            `yaml:"when"`
	Variables    map[string]string `yaml:"variables"`
	BeforeScript []string          `yaml:"before_script"`
	Script       []string          `yaml:"script"`
	AfterScript  []string          `yaml:"after_script"`
	Artifacts    struct {
		When  string   `yaml:"when"`
		Paths []string `yaml:"paths"`
	} `yaml:"artifacts"`
	Environment struct {
		Name string `yaml:"name"`
	} `yaml:"environment"`
}

// glPipeline is the snippet with a team's job added, as GitLab merges it.
type glPipeline struct {
	vars map[string]string
	jobs map[string]glJob
}

func loadGitLab(t *testing.T, teamJob string) glPipeline {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "hooks", "ci", "gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(append(raw, []byte("\n"+teamJob)...), &doc); err != nil {
		t.Fatal(err)
	}
	p := glPipeline{vars: map[string]string{}, jobs: map[string]glJob{}}
	for name, node := range doc {
		if name == "variables" {
			node.Decode(&p.vars)
			continue
		}
		var j glJob
		if err := node.Decode(&j); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p.jobs[name] = j
	}
	for name, j := range p.jobs { // extends: the template's keys unless the job sets them
		if j.Extends == "" {
			continue
		}
		base := p.jobs[j.Extends]
		vars := map[string]string{}
		for k, v := range base.Variables {
			vars[k] = v
		}
		for k, v := range j.Variables {
			vars[k] = v
		}
		j.Variables = vars
		if j.BeforeScript == nil {
			j.BeforeScript = base.BeforeScript
		}
		if j.AfterScript == nil {
			j.AfterScript = base.AfterScript
		}
		if j.Artifacts.Paths == nil {
			j.Artifacts = base.Artifacts
		}
		p.jobs[name] = j
	}
	return p
}

// runJob runs a job in its own checkout: before_script and script in one
// shell with set -eo pipefail, after_script in another, as the runner does.
// It returns whether the job passed, and its log.
func (p glPipeline) runJob(t *testing.T, name, projectDir string, ciVars ...string) (bool, string) {
	j, ok := p.jobs[name]
	if !ok {
		t.Fatalf("no job %s", name)
	}
	vars := map[string]string{"CI_PROJECT_DIR": projectDir, "CI_PIPELINE_ID": "77", "CI_JOB_ID": fmt.Sprint(len(name))}
	for _, kv := range ciVars {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	for _, set := range []map[string]string{p.vars, j.Variables} {
		for k, v := range set {
			vars[k] = os.Expand(v, func(n string) string { return vars[n] })
		}
	}
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	env = baseEnv(env...)
	code, log := shell(t, projectDir, env, []string{"bash", "-eo", "pipefail"}, strings.Join(append(append([]string{}, j.BeforeScript...), j.Script...), "\n"))
	if len(j.AfterScript) > 0 { // its failure does not fail the job
		_, after := shell(t, projectDir, env, []string{"bash", "-eo", "pipefail"}, strings.Join(j.AfterScript, "\n"))
		log += after
	}
	t.Logf("job %s: exit %d\n%s", name, code, log)
	return code == 0, log
}

// collect copies a job's artifacts into the next job's checkout.
func (p glPipeline) collect(t *testing.T, name, from, to string) {
	for _, pat := range p.jobs[name].Artifacts.Paths {
		m, _ := filepath.Glob(filepath.Join(from, pat))
		for _, f := range m {
			rel, _ := filepath.Rel(from, f)
			copyFile(t, f, filepath.Join(to, rel))
		}
	}
}

// TestGitLabSnippet: a team's job extends .logbook and wraps its commands;
// the logbook-seal job (.post, its own checkout, the only one given the
// key) seals and verifies the sessions from the artifacts. A record
// signed with a key other than the pinned one fails the pipeline; so does
// an in-progress file edited between the jobs.
func TestGitLabSnippet(t *testing.T) {
	t.Parallel()
	p := loadGitLab(t, "test:\n  extends: .logbook\n  script:\n    - logbook-wrap -- sh -c 'echo unit tests'\n    - logbook-wrap --products 'out/**' -- sh -c 'mkdir -p out; echo x > out/x'\n")
	seal := p.jobs["logbook-seal"]
	if seal.Stage != ".post" || seal.When != "always" || seal.Environment.Name == "" {
		t.Errorf("logbook-seal job: %+v", seal)
	}
	if p.jobs["test"].Artifacts.When != "always" {
		t.Errorf("the recording job's artifacts must be kept when it fails")
	}
	w := newWorkspace(t)
	src := "LOGBOOK_SRC=" + repoRoot
	// The recording job: no key in its variables.
	os.Rename(w.bin, filepath.Join(w.dir, ".logbook-bin"))
	if ok, log := p.runJob(t, "test", w.dir, src); !ok {
		t.Fatalf("test job failed:\n%s", log)
	}
	run := func(key string, edit func(dir string)) (bool, string) {
		checkout := t.TempDir()
		copyFile(t, filepath.Join(w.dir, "logbook.pub"), filepath.Join(checkout, "logbook.pub"))
		copyBin(t, filepath.Join(checkout, ".logbook-bin"))
		p.collect(t, "test", w.dir, checkout)
		if edit != nil {
			edit(checkout)
		}
		return p.runJob(t, "logbook-seal", checkout, src, "LOGBOOK_SIGNING_KEY="+key)
	}
	ok, log := run(w.key, nil)
	if !ok || !strings.Contains(log, "1 record(s) verified against logbook.pub") {
		t.Fatalf("seal job failed:\n%s", log)
	}
	other, _ := newKey(t, t.TempDir(), "other")
	otherPEM, _ := os.ReadFile(other)
	if ok, log := run(string(otherPEM), nil); ok || !strings.Contains(log, "REFUSED SIGNER_NOT_TRUSTED") {
		t.Errorf("another key passed:\n%s", log)
	}
	edited := func(dir string) {
		m, _ := filepath.Glob(filepath.Join(dir, ".logbook", "*.steps.jsonl"))
		b, _ := os.ReadFile(m[0])
		os.WriteFile(m[0], bytes.Replace(b, []byte("unit tests"), []byte("unit tests passed"), 1), 0o600)
	}
	if ok, log := run(w.key, edited); ok || !strings.Contains(log, "NOT sealed") {
		t.Errorf("an edited in-progress file passed:\n%s", log)
	}
}
