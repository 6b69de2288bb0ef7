package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/verdict"
)

// TestManagedHooksNote: a server run with ManagedSettings notes, after a
// session's first event, whether the hooks came from that file, and the
// verifier's --require-managed accepts only a record whose note says
// managed: the switch off, or the file another user's, is named.
func TestManagedHooksNote(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the managed file must be root's")
	}
	dir := t.TempDir()
	hooks := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"http","url":"http://127.0.0.1:8421/v1/hooks/claude-code"}]}]}`
	cases := []struct {
		name, text string
		owner      int
		want       format.Code
	}{
		{"managed", hooks + `,"allowManagedHooksOnly":true}`, 0, ""},
		{"switch-off", hooks + `,"allowManagedHooksOnly":false}`, 0, format.HooksNotManaged},
		{"not-roots", hooks + `,"allowManagedHooksOnly":true}`, 65534, format.HooksNotManaged},
	}
	for _, c := range cases {
		file := filepath.Join(dir, c.name+".json")
		os.WriteFile(file, []byte(c.text), 0o644)
		os.Chown(file, c.owner, c.owner)
		f := newServer(t, func(cfg *server.Config, _ *http.Server) { cfg.ManagedSettings = file })
		f.record(t, http.DefaultClient, "m-"+c.name, 2, true)
		_, rec := get(t, f.ts.URL+"/v1/sessions/m-"+c.name+"/record")
		_, cp := get(t, f.ts.URL+"/v1/sessions/m-"+c.name+"/checkpoint")
		o := verdict.Run(verdict.Inputs{Record: rec, Checkpoints: [][]byte{cp}, CheckpointKeys: []checkpoint.Key{{Pub: f.pub}}, RequireManaged: true})
		if o.Result.Code != c.want || (c.want == "" && o.Level != checkpoint.LevelServer) {
			t.Errorf("%s: %+v level %q, want %q", c.name, o.Result, o.Level, c.want)
		}
		t.Logf("%s: %s %s", c.name, o.Result.Code, o.Result.Detail)
	}
}
