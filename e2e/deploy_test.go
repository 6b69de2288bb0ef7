package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnitVerifies: deploy/logbook-server.service (and the
// replicas' logbook-server-replica.service) passes
// systemd-analyze verify (pointed at the built binary), where systemd is
// installed. The container recipe is not built here: there is no Docker
// engine on CI.
func TestSystemdUnitVerifies(t *testing.T) {
	t.Parallel()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not found: the unit file is not checked")
	}
	for _, name := range []string{"logbook-server.service", "logbook-server-replica.service"} {
		unit, err := os.ReadFile("../deploy/" + name)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		text := strings.ReplaceAll(string(unit), "/usr/local/bin/logbook-server", filepath.Join(bin, "logbook-server"))
		// The environment file is made at setup (the unit's header).
		env := filepath.Join(dir, "db.env")
		os.WriteFile(env, []byte("LOGBOOK_DB_DSN=x:y@tcp(127.0.0.1:3306)/logbook\n"), 0o600)
		text = strings.ReplaceAll(text, "/etc/logbook-server/db.env", env)
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		if out, err := exec.Command(sa, "verify", path).CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("%s: systemd-analyze verify: %v\n%s", name, err, out)
		}
	}
}

// TestSystemdSetupMakesWhatTheUnitReads: every file the unit's ExecStart
// names (the key, the read token) is made by a line of README's systemd
// option and of the unit's own header. README's never made the
// read.token the unit reads: the service could not start.
func TestSystemdSetupMakesWhatTheUnitReads(t *testing.T) {
	t.Parallel()
	unit, err := os.ReadFile("../deploy/logbook-server.service")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var start string
	for _, l := range strings.Split(string(unit), "\n") {
		if s, ok := strings.CutPrefix(l, "ExecStart="); ok {
			start = s
		}
	}
	header, _, _ := strings.Cut(string(unit), "[Unit]")
	_, option, _ := strings.Cut(string(readme), "# 1. A dedicated user (systemd)")
	option, _, _ = strings.Cut(option, "# 2.")
	made := map[string]string{"--key": "--new-key ", "--read-token-file": "--new-token ", "--token-file": "--new-token "}
	f := strings.Fields(start)
	n := 0
	for i := 0; i+1 < len(f); i++ {
		mk, ok := made[f[i]]
		if !ok {
			continue
		}
		n++
		for name, text := range map[string]string{"README.md's systemd option": option, "the unit's header": header} {
			if !strings.Contains(text, mk+f[i+1]) {
				t.Errorf("the unit reads %s %s, which %s does not make (%s%s)", f[i], f[i+1], name, mk, f[i+1])
			}
		}
	}
	if n == 0 {
		t.Fatalf("no file found in the unit's ExecStart: %q", start)
	}
}

// TestInstallDocBinarySize: the size docs/install.md gives for what a
// project install copies into .logbook/bin is within a third of the
// binaries this build makes (it said 18 MB of 56).
func TestInstallDocBinarySize(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	var said float64
	if _, err := fmt.Sscanf(string(doc[strings.Index(string(doc), "Binaries (")+len("Binaries ("):]), "%g MB", &said); err != nil {
		t.Fatalf(`docs/install.md gives no "Binaries (N MB": %v`, err)
	}
	var total int64
	for _, name := range []string{"record-step", "logbook-seal", "logbook-verify", "logbook-policy", "logbook-install"} {
		st, err := os.Stat(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	mb := float64(total) / 1e6
	t.Logf("docs/install.md: %g MB; this build: %.1f MB", said, mb)
	if said < mb*3/4 || said > mb*4/3 {
		t.Errorf("docs/install.md says the binaries are %g MB; this build's are %.1f MB", said, mb)
	}
}
