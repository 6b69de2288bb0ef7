package indexcli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"

	"github.com/logbook-project/logbook/internal/indexcli"
)

// TestHostileAnswers: what a server answers reaches the terminal shown,
// never as controls (an escape that retitles the terminal or moves the
// cursor, a C1 CSI, a bidi override, a newline that forges a row); an
// answer of the wrong shape is a named error, not a panic.
func TestHostileAnswers(t *testing.T) {
	const evil = "x\x1b]0;pwned\x07\u009b31m\u202eok\nFORGED\tcol\r\x7f\U000e0001"
	q := func(s string) string { return strings.ReplaceAll(`"`+s+`"`, "\n", `\n`) }
	esc := strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, "\u009b", `\u009b`, "\u202e", `\u202e`, "\t", `\t`, "\r", `\r`, "\x7f", `\u007f`, "\U000e0001", `\udb40\udc01`)
	e := esc.Replace(q(evil))
	answers := map[string]string{
		"/v1/sessions":        `{"sessions":[{"id":` + e + `,"developer":` + e + `,"repo":` + e + `,"start":` + e + `,"verdict":` + e + `,"tools":[` + e + `],"commits":[` + e + `],"decisions":[` + e + `]}],"next":` + e + `}`,
		"/v1/coverage":        `{"since":` + e + `,"silent":[{"developer":` + e + `,"last":` + e + `}],"unended":[{"id":` + e + `,"developer":` + e + `,"end":` + e + `}],"outages":[{"id":` + e + `}]}`,
		"/v1/retention":       `{"keepDays":3,"setBy":` + e + `,"holds":[{"session":` + e + `,"at":` + e + `,"by":` + e + `,"reason":` + e + `}]}`,
		"/v1/retention/run":   `{"deleted":[` + e + `]}`,
		"/v1/sessions/s/hold": `{"session":` + e + `,"held":true}`,
	}
	var wrong bool // answer the wrong types instead
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wrong {
			w.Write([]byte(`{"keepDays":"x","holds":{},"sessions":7,"session":[],"deleted":"y","silent":1}`))
			return
		}
		if r.URL.Query().Get("cursor") != "" || r.URL.Path == "/v1/refuse" {
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":` + e + `,"detail":` + e + `}`))
			return
		}
		a, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(a))
	}))
	defer ts.Close()
	env := func(k string) string { return map[string]string{"LOGBOOK_SERVER_URL": ts.URL}[k] }
	clean := func(name, s string) {
		t.Helper()
		for _, r := range s {
			if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Errorf("%s: %U reaches the terminal: %q", name, r, s)
				return
			}
		}
		if strings.Contains(s, "\nFORGED") {
			t.Errorf("%s: a newline of the answer forged a line: %q", name, s)
		}
	}
	for _, args := range [][]string{
		{"sessions"}, {"sessions", "--all"}, {"coverage"}, {"retention"}, {"retention", "--run"}, {"hold", "--session", "s"},
	} {
		var out, errb bytes.Buffer
		code := indexcli.Run(args, &out, &errb, env)
		clean(strings.Join(args, " ")+" stdout", out.String())
		clean(strings.Join(args, " ")+" stderr", errb.String())
		if args[len(args)-1] == "--all" {
			if code != 1 || !strings.Contains(errb.String(), "⟦U+001B⟧") {
				t.Errorf("sessions --all, refused: %d %q", code, errb.String())
			}
		} else if code != 0 || !strings.Contains(out.String(), "⟦U+001B⟧") {
			t.Errorf("%v: %d %q %q", args, code, out.String(), errb.String())
		}
	}
	// --json: the same answer as JSON whose strings hold what the server
	// sent, every control escaped (encoding/json escapes C0 alone).
	for _, args := range [][]string{
		{"sessions", "--json"}, {"coverage", "--json"}, {"retention", "--json"}, {"retention", "--run", "--json"}, {"hold", "--session", "s", "--json"},
	} {
		var out, errb bytes.Buffer
		code := indexcli.Run(args, &out, &errb, env)
		clean(strings.Join(args, " ")+" stdout", out.String())
		var found bool
		dec := json.NewDecoder(&out)
		for {
			var v any
			if err := dec.Decode(&v); err != nil {
				break
			}
			found = found || strings.Contains(fmt.Sprint(v), evil)
		}
		if code != 0 || !found {
			t.Errorf("%v: %d, the answer's string not read back from %q %q", args, code, out.String(), errb.String())
		}
	}
	wrong = true
	for _, args := range [][]string{
		{"sessions"}, {"coverage"}, {"retention"}, {"retention", "--run"}, {"hold", "--session", "s"},
	} {
		var out, errb bytes.Buffer
		if code := indexcli.Run(args, &out, &errb, env); code != 1 || !strings.Contains(errb.String(), indexcli.ErrAnswer.Error()) {
			t.Errorf("%v, wrong types: %d %q %q", args, code, out.String(), errb.String())
		}
	}
}

// TestAllStops: sessions --all against a server whose cursor does not
// move (the same cursor again, or a page naming no session) stops with
// ErrAnswer instead of asking for ever.
func TestAllStops(t *testing.T) {
	for name, page := range map[string]string{
		"same cursor": `{"sessions":[{"id":"s-1"}],"next":"c1"}`,
		"empty pages": `{"sessions":[],"next":"c2"}`,
	} {
		asked := 0
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked++
			if asked > 10 {
				w.WriteHeader(http.StatusGone)
				return
			}
			if name == "same cursor" && r.URL.Query().Get("cursor") == "" {
				w.Write([]byte(`{"sessions":[{"id":"s-0"}],"next":"c1"}`))
				return
			}
			w.Write([]byte(page))
		}))
		var out, errb bytes.Buffer
		code := indexcli.Run([]string{"sessions", "--all"}, &out, &errb, func(k string) string { return map[string]string{"LOGBOOK_SERVER_URL": ts.URL}[k] })
		ts.Close()
		if code != 1 || asked > 3 || !strings.Contains(errb.String(), indexcli.ErrAnswer.Error()) {
			t.Errorf("%s: exit %d after %d pages: %q", name, code, asked, errb.String())
		}
	}
}

// TestQueryRefusedIsUsage: a query the server cannot read (400
// QUERY_INVALID: a sort, bound or cursor it refuses) exits 2, as a usage
// error the command found itself would; another refusal exits 1.
func TestQueryRefusedIsUsage(t *testing.T) {
	status, code := http.StatusBadRequest, "QUERY_INVALID"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write([]byte(`{"error":"` + code + `","detail":"sort: not one of newest, oldest"}`))
	}))
	defer ts.Close()
	env := func(k string) string { return map[string]string{"LOGBOOK_SERVER_URL": ts.URL}[k] }
	var out, errb bytes.Buffer
	if got := indexcli.Run([]string{"sessions", "--sort", "bogus"}, &out, &errb, env); got != 2 || !strings.Contains(errb.String(), "QUERY_INVALID") {
		t.Errorf("QUERY_INVALID: exit %d, %q", got, errb.String())
	}
	status, code = http.StatusForbidden, "FORBIDDEN"
	errb.Reset()
	if got := indexcli.Run([]string{"sessions"}, &out, &errb, env); got != 1 || !strings.Contains(errb.String(), "FORBIDDEN") {
		t.Errorf("FORBIDDEN: exit %d, %q", got, errb.String())
	}
}
