package indexcli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/server"
)

// shown is how a string of the server's answer is printed: a repo is a
// developer's folder name, a hold's reason anyone's text, and a server
// may be hostile, so a control (an escape that moves the cursor or
// retitles the terminal, a newline that forges a row, a tab that shifts
// the table) or a bidi override is shown as review.Clean shows it.
func shown(s string) string { return review.Clean(s) }

// shownAll is shown of each, joined by commas.
func shownAll(l []string) string { return shown(strings.Join(l, ",")) }

// Commands are the names Run takes as logbook-server's first argument.
var Commands = []string{"sessions", "coverage", "retention", "hold"}

// IsCommand reports whether name is one of Commands.
func IsCommand(name string) bool {
	for _, c := range Commands {
		if c == name {
			return true
		}
	}
	return false
}

const synopsis = `logbook-server sessions --server URL [--developer D] [--repo R] [--commit C] [--tool T] [--decision allow|deny|ask]
                        [--level server|logged] [--since T] [--until T] [--sort newest|oldest|end|steps|developer|repo]
                        [--limit N] [--cursor C] [--all] [--json]
logbook-server coverage --server URL [--days N] [--quiet DURATION] [--developer D]... [--json]
logbook-server retention --server URL [--keep-days N] [--run [--reason TEXT]] [--json]
logbook-server hold --server URL --session ID [--reason TEXT | --release] [--json]`

type client struct {
	base   string
	token  string
	http   *http.Client
	stdout io.Writer
}

type strs []string

func (s *strs) String() string     { return strings.Join(*s, ",") }
func (s *strs) Set(v string) error { *s = append(*s, v); return nil }

// Run runs one of Commands: args[0] names it. The read token comes from
// --read-token-file or $LOGBOOK_SERVER_READ_TOKEN. Exit status: 0 done,
// 1 the server refused or failed, 2 usage.
func Run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := args[0]
	fs := flag.NewFlagSet("logbook-server "+cmd, flag.ContinueOnError)
	base := fs.String("server", "", "the server's `URL` (default $LOGBOOK_SERVER_URL)")
	tokenFile := fs.String("read-token-file", "", "`FILE` holding the read token (default $LOGBOOK_SERVER_READ_TOKEN)")
	asJSON := fs.Bool("json", false, "print the server's JSON (sessions: one session a line)")
	var q struct{ developer, repo, commit, tool, decision, level, since, until, cursor, sort string }
	var limit int
	var all, run, release bool
	var days, keep int64
	var quiet time.Duration
	var devs strs
	var reason, session string
	switch cmd {
	case "sessions":
		fs.StringVar(&q.developer, "developer", "", "sessions of this `DEVELOPER`")
		fs.StringVar(&q.repo, "repo", "", "sessions in this `REPO` (its folder's name)")
		fs.StringVar(&q.commit, "commit", "", "sessions that made this `COMMIT` (its full id)")
		fs.StringVar(&q.tool, "tool", "", "sessions that used this `TOOL` (Bash, Edit, …)")
		fs.StringVar(&q.decision, "decision", "", "sessions with a gate `DECISION` (allow, deny, ask)")
		fs.StringVar(&q.level, "level", "", "sessions recorded at this `LEVEL` (server, logged)")
		fs.StringVar(&q.since, "since", "", "sessions started at or after `TIME` (RFC 3339 or YYYY-MM-DD)")
		fs.StringVar(&q.until, "until", "", "sessions started before `TIME`")
		fs.StringVar(&q.sort, "sort", "", "the `ORDER`: "+strings.Join(index.Sorts, ", ")+" (default newest: by start, latest first)")
		fs.IntVar(&limit, "limit", 0, "sessions per page (default 50, at most 500)")
		fs.StringVar(&q.cursor, "cursor", "", "continue after the page that printed this `CURSOR`")
		fs.BoolVar(&all, "all", false, "follow the pages to the last")
	case "coverage":
		fs.Int64Var(&days, "days", 7, "a developer who sent nothing for `N` days is silent")
		fs.DurationVar(&quiet, "quiet", time.Hour, "an open session with no event for `DURATION` stopped without a SessionEnd")
		fs.Var(&devs, "developer", "an enrolled `DEVELOPER` to check (repeat; the server's enrollment list is added)")
	case "retention":
		fs.Int64Var(&keep, "keep-days", 0, "set the tenant's policy: keep sealed sessions `N` days")
		fs.BoolVar(&run, "run", false, "run the policy now: replace each record it no longer keeps by a signed tombstone (refused, deleting nothing, when one is under a legal hold)")
		fs.StringVar(&reason, "reason", "", "with --run, the tombstones' `TEXT` (default: the policy)")
	case "hold":
		fs.StringVar(&session, "session", "", "the session `ID`")
		fs.StringVar(&reason, "reason", "", "why it is held (`TEXT`)")
		fs.BoolVar(&release, "release", false, "lift the session's hold")
	}
	if code, done := cli.Parse(fs, args[1:], synopsis, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logbook-server %s: unexpected argument %q\n", cmd, fs.Arg(0))
		return 2
	}
	keepSet := false
	fs.Visit(func(f *flag.Flag) { keepSet = keepSet || f.Name == "keep-days" })
	if keepSet && keep < 1 {
		// 0 was taken for "not given" and silently left the policy as it was.
		fmt.Fprintf(stderr, "logbook-server %s: --keep-days %d: want at least 1 day\n", cmd, keep)
		return 2
	}
	c := client{base: strings.TrimRight(*base, "/"), token: strings.TrimSpace(getenv("LOGBOOK_SERVER_READ_TOKEN")), http: &http.Client{Timeout: time.Minute}, stdout: stdout}
	if c.base == "" {
		c.base = strings.TrimRight(getenv("LOGBOOK_SERVER_URL"), "/")
	}
	if c.base == "" {
		fmt.Fprintf(stderr, "logbook-server %s: --server URL is required\n", cmd)
		return 2
	}
	if *tokenFile != "" {
		b, err := readlimit.Small(*tokenFile, readlimit.Key)
		if err != nil {
			fmt.Fprintf(stderr, "logbook-server %s: %v\n", cmd, err)
			return 2
		}
		c.token = strings.TrimSpace(string(b))
	}
	var err error
	switch cmd {
	case "sessions":
		v := url.Values{}
		for k, s := range map[string]string{"developer": q.developer, "repo": q.repo, "commit": q.commit, "tool": q.tool, "decision": q.decision,
			"level": q.level, "since": q.since, "until": q.until, "cursor": q.cursor, "sort": q.sort} {
			if s != "" {
				v.Set(k, s)
			}
		}
		if limit != 0 {
			v.Set("limit", strconv.Itoa(limit))
		}
		err = c.sessions(v, all, *asJSON, stderr)
	case "coverage":
		v := url.Values{"days": {strconv.FormatInt(days, 10)}, "quiet": {quiet.String()}, "developer": devs}
		var a server.CoverageAnswer
		if err = c.do("GET", "/v1/coverage?"+v.Encode(), nil, &a); err == nil {
			printCoverage(stdout, a, *asJSON)
		}
	case "retention":
		// The answer printed is the last one asked: the run's, else the
		// policy's (as set, or as it stands).
		var a json.RawMessage
		var print func(io.Writer, json.RawMessage) error = printPolicy
		if keep != 0 {
			err = c.do("PUT", "/v1/retention", map[string]any{"keepDays": keep}, &a)
		}
		if err == nil && run {
			err = c.do("POST", "/v1/retention/run", map[string]any{"reason": reason}, &a)
			print = printRun
		}
		if err == nil && keep == 0 && !run {
			err = c.do("GET", "/v1/retention", nil, &a)
		}
		if err == nil {
			err = printAnswer(stdout, a, *asJSON, print)
		}
	case "hold":
		if session == "" {
			fmt.Fprintln(stderr, "logbook-server hold: --session ID is required")
			return 2
		}
		var a json.RawMessage
		if release {
			err = c.do("DELETE", "/v1/sessions/"+url.PathEscape(session)+"/hold", nil, &a)
		} else {
			err = c.do("PUT", "/v1/sessions/"+url.PathEscape(session)+"/hold", map[string]any{"reason": reason}, &a)
		}
		if err == nil {
			err = printAnswer(stdout, a, *asJSON, printHold)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "logbook-server %s: %v\n", cmd, err)
		if errors.Is(err, ErrQuery) {
			return 2
		}
		return 1
	}
	return 0
}

func (c *client) sessions(v url.Values, all, asJSON bool, stderr io.Writer) error {
	tw := tabwriter.NewWriter(c.stdout, 2, 8, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintln(tw, "START\tSESSION\tDEVELOPER\tREPO\tSTEPS\tVERDICT\tTOOLS\tDECISIONS\tCOMMITS")
	}
	for {
		var a server.SearchAnswer
		if err := c.do("GET", "/v1/sessions?"+v.Encode(), nil, &a); err != nil {
			return err
		}
		for _, s := range a.Sessions {
			if asJSON {
				b, _ := json.Marshal(s)
				fmt.Fprintf(c.stdout, "%s\n", escapeJSON(b))
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", shown(s.Start), shown(s.ID), dash(s.Developer), dash(s.Repo), s.Steps, shown(verdictOf(s)),
				dash(shownAll(s.Tools)), dash(shownAll(s.Decisions)), dash(shownAll(s.Commits)))
		}
		if a.Next == "" {
			return tw.Flush()
		}
		// A page that names no session, or the cursor it was asked
		// with, does not move: --all would ask for it forever.
		if len(a.Sessions) == 0 || a.Next == v.Get("cursor") {
			tw.Flush()
			return fmt.Errorf("%w: the cursor %s does not move past the page", ErrAnswer, shown(a.Next))
		}
		if !all {
			tw.Flush()
			fmt.Fprintf(stderr, "more: --cursor %s (or --all)\n", shown(a.Next))
			return nil
		}
		v.Set("cursor", a.Next)
	}
}

func verdictOf(s index.View) string {
	if s.Verdict == index.VerdictOpen && !s.Ended {
		return "open"
	}
	return s.Verdict
}

// dash is s shown, or "-" for "".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return shown(s)
}

func printCoverage(w io.Writer, a server.CoverageAnswer, asJSON bool) {
	if asJSON {
		printJSON(w, a)
		return
	}
	fmt.Fprintf(w, "silent since %s: %d developer(s)\n", shown(a.Since), len(a.Silent))
	for _, d := range a.Silent {
		fmt.Fprintf(w, "  %s (last session ended %s)\n", shown(d.Developer), shown(cmpOr(d.Last, "never")))
	}
	fmt.Fprintf(w, "stopped without a SessionEnd: %d session(s)\n", len(a.Unended))
	for _, s := range a.Unended {
		fmt.Fprintf(w, "  %s %s (last event %s)\n", shown(s.ID), dash(s.Developer), shown(s.End))
	}
	fmt.Fprintf(w, "outages (events lost, unsent or refused): %d session(s)\n", len(a.Outages))
	for _, s := range a.Outages {
		fmt.Fprintf(w, "  %s %s lost %d, unsent %d, refused %d\n", shown(s.ID), dash(s.Developer), s.Lost, s.Unsent, s.Refused)
	}
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// printAnswer prints a retention or hold answer: as the server sent it
// (--json, indented), else as text.
func printAnswer(w io.Writer, a json.RawMessage, asJSON bool, text func(io.Writer, json.RawMessage) error) error {
	if asJSON {
		var v any
		if err := json.Unmarshal(a, &v); err != nil {
			return fmt.Errorf("%w: %v", ErrAnswer, err)
		}
		printJSON(w, v)
		return nil
	}
	return text(w, a)
}

// printPolicy prints GET or PUT /v1/retention's answer: the policy, then
// the legal holds as a table.
func printPolicy(w io.Writer, b json.RawMessage) error {
	var a server.RetentionAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("%w: %v", ErrAnswer, err)
	}
	if a.KeepDays == 0 {
		fmt.Fprintln(w, "retention: no policy, nothing is deleted (set one with --keep-days N)")
	} else {
		fmt.Fprintf(w, "retention: sealed sessions are kept %d day(s) (set by %s)\n", a.KeepDays, dash(a.SetBy))
	}
	fmt.Fprintf(w, "legal holds: %d session(s)\n", len(a.Holds))
	if len(a.Holds) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSINCE\tBY\tREASON")
	for _, h := range a.Holds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", shown(h.Session), shown(h.At), dash(h.By), dash(h.Reason))
	}
	return tw.Flush()
}

// printRun prints POST /v1/retention/run's answer: the sessions it
// replaced by tombstones, one a line.
func printRun(w io.Writer, b json.RawMessage) error {
	var a server.RunAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("%w: %v", ErrAnswer, err)
	}
	fmt.Fprintf(w, "retention run: %d session(s) replaced by a signed tombstone\n", len(a.Deleted))
	for _, id := range a.Deleted {
		fmt.Fprintf(w, "  %s\n", shown(id))
	}
	return nil
}

// printHold prints PUT or DELETE /v1/sessions/{id}/hold's answer.
func printHold(w io.Writer, b json.RawMessage) error {
	var a struct {
		Session string `json:"session"`
		Held    bool   `json:"held"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("%w: %v", ErrAnswer, err)
	}
	if a.Held {
		fmt.Fprintf(w, "%s: held (retention deletes nothing of it until released)\n", shown(a.Session))
	} else {
		fmt.Fprintf(w, "%s: not held\n", shown(a.Session))
	}
	return nil
}

func printJSON(w io.Writer, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintf(w, "%s\n", escapeJSON(b))
}

// escapeJSON writes, in JSON that encoding/json made, DEL and every rune
// past ASCII that does not print (fleet.Prints: a C1 control such as
// CSI, a bidi override, a zero-width mark) as its \u escape: --json goes
// to a terminal as often as to jq, and encoding/json escapes only C0.
// The value read back is the same. Outside its strings the encoder
// writes ASCII alone, so every such rune is inside a string.
func escapeJSON(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf && b[i] != 0x7f {
			if out != nil {
				out = append(out, b[i])
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r != 0x7f && fleet.Prints(r) {
			if out != nil {
				out = append(out, b[i:i+n]...)
			}
		} else {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			if r > 0xFFFF {
				hi, lo := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}

// do sends one request and decodes its JSON answer into out; a refusal
// is the server's {"error", "detail"} as an error.
func (c *client) do(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return err
	}
	if len(b) > maxAnswer {
		return fmt.Errorf("%s %s: %w: over %d MiB", method, path, ErrAnswer, maxAnswer>>20)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error, Detail string }
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			err := fmt.Errorf("%s %s: %s: %s", method, path, shown(e.Error), shown(e.Detail))
			if resp.StatusCode == http.StatusBadRequest && e.Error == "QUERY_INVALID" {
				err = fmt.Errorf("%w: %w", ErrQuery, err)
			}
			return err
		}
		return fmt.Errorf("%s %s: %s", method, path, shown(resp.Status))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w: %v", method, path, ErrAnswer, err)
	}
	return nil
}

// maxAnswer is the largest answer read (a page of 500 sessions is a
// few hundred KiB).
const maxAnswer = 64 << 20

// ErrQuery is the server's refusal of the query the command sent (a
// filter, sort or cursor it cannot read: 400 QUERY_INVALID): a usage
// error, exit 2, as one the command finds itself.
var ErrQuery = errors.New("the server cannot read the query")

// ErrAnswer is the error for an answer that is not one logbook-server
// sends: not JSON, a member of the wrong type, past maxAnswer.
var ErrAnswer = errors.New("not an answer logbook-server sends")
