// Package fleetcmd is logbook-server's fleet on the command line: the
// admin's subcommands (enroll, credentials list|revoke), which work on the
// data directory (or, with --db, the replicas' database) whether the
// server runs or not, and the serve flags
// --fleet and --oidc-config that turn a fleet on (docs/fleet.md).
package fleetcmd

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Subcommands are the admin's subcommands, for the command's dispatch.
var Subcommands = []string{"enroll", "credentials"}

const synopsis = `logbook-server enroll --tenant T --developer NAME [--role ROLE] [--ttl 24h] [--data DIR | --db DSN]
logbook-server credentials list [--json] [--data DIR | --db DSN]
logbook-server credentials revoke ID [--data DIR | --db DSN]`

// Run runs subcommand args[0] (one of Subcommands); getenv gives the
// data directory's default as the server takes it ($STATE_DIRECTORY).
func Run(args []string, stdout, stderr io.Writer, getenv func(string) string, now time.Time) int {
	sub := args[0]
	args = args[1:]
	if sub == "credentials" {
		if len(args) == 0 || args[0] != "list" && args[0] != "revoke" {
			if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
				fmt.Fprintln(stdout, "usage:\n"+synopsis)
				return 0
			}
			fmt.Fprintln(stderr, "logbook-server credentials: want list or revoke\nusage:\n"+synopsis)
			return 2
		}
		sub, args = "credentials "+args[0], args[1:]
	}
	fs := flag.NewFlagSet("logbook-server "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "the server's data `DIR` (default $STATE_DIRECTORY, else ./logbook-server-data)")
	tenant := fs.String("tenant", "", "enroll: the developer's `TENANT` (organization or team)")
	dev := fs.String("developer", "", "enroll: the developer's (or CI job's) `NAME`, as every step it sends will name it")
	// --role may be repeated as well as comma-separated: a second --role
	// replacing the first would enroll an admin who was meant to audit
	// too without a word.
	var roleFlags []string
	fs.Func("role", "enroll: the credential's `ROLE`s, comma-separated or the flag repeated: developer, auditor, approver, admin (default developer)", func(v string) error {
		roleFlags = append(roleFlags, v)
		return nil
	})
	ttl := fs.Duration("ttl", 24*time.Hour, "enroll: how long the code may be traded for a credential")
	asJSON := fs.Bool("json", false, "list: one JSON array")
	dsn := fs.String("db", "", "the replicas' database `DSN`, where a fleet of replicas keeps its credentials (default $LOGBOOK_DB_DSN; docs/replicas.md)")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	// Flags may follow the ID too, as the synopsis and docs/fleet.md give
	// them ("credentials revoke ID --data DIR"): Go's flag package stops
	// at the first argument that is not a flag.
	var pos []string
	for fs.NArg() > 0 {
		pos = append(pos, fs.Arg(0))
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return 2
		}
	}
	if err := fs.Parse(pos); err != nil { // only positionals left: sets Args
		return 2
	}
	role := strings.Join(roleFlags, ",")
	if roleFlags == nil { // not given; an empty --role '' is refused below
		role = string(fleet.Developer)
	}
	dir := *data
	if dir == "" {
		dir = getenv("STATE_DIRECTORY")
	}
	if dir == "" {
		dir = "logbook-server-data"
	}
	if *dsn == "" {
		*dsn = getenv("LOGBOOK_DB_DSN")
	}
	st, closeDB, err := open(context.Background(), dir, *dsn)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 1
	}
	defer closeDB()
	switch sub {
	case "enroll":
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "logbook-server enroll: unexpected argument %q\nusage:\n%s\n", fs.Arg(0), synopsis)
			return 2
		}
		if *tenant == "" || *dev == "" {
			fmt.Fprintln(stderr, "logbook-server enroll: --tenant and --developer are required\nusage:\n"+synopsis)
			return 2
		}
		var roles []fleet.Role
		for _, r := range strings.Split(role, ",") {
			roles = append(roles, fleet.Role(strings.TrimSpace(r)))
		}
		code, err := st.Enroll(*tenant, *dev, roles, *ttl, now, rand.Reader)
		if err != nil {
			fmt.Fprintln(stderr, "logbook-server enroll:", err)
			return 2
		}
		fmt.Fprintln(stdout, code)
		if slices.Contains(roles, fleet.Developer) {
			fmt.Fprintf(stderr, "logbook-server: enrollment code for %s in %s (%s), single use, until %s: on the developer's machine run\n  record-step install --harness NAME --server URL --enroll CODE\n", *dev, *tenant, role, now.Add(*ttl).UTC().Format(time.RFC3339))
		} else {
			// An auditor or admin installs no hooks: it trades the code
			// for the credential its searches send as a bearer token.
			fmt.Fprintf(stderr, "logbook-server: enrollment code for %s in %s (%s), single use, until %s: trade it for a credential with\n  curl -s -X POST -d '{\"code\":\"CODE\"}' URL/v1/enroll\nand send its \"credential\" as LOGBOOK_SERVER_READ_TOKEN (logbook-server sessions, coverage, retention, hold)\n", *dev, *tenant, role, now.Add(*ttl).UTC().Format(time.RFC3339))
		}
		return 0
	case "credentials list":
		list, err := st.List()
		if err != nil {
			fmt.Fprintln(stderr, "logbook-server:", err)
			return 1
		}
		if *asJSON {
			if list == nil {
				list = []fleet.Credential{}
			}
			b, _ := json.MarshalIndent(list, "", "  ")
			fmt.Fprintln(stdout, string(b))
			return 0
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTENANT\tDEVELOPER\tROLES\tISSUED\tSTATE")
		for _, c := range list {
			state := "active"
			if c.Revoked {
				state = "revoked"
			}
			rs := make([]string, len(c.Roles))
			for i, r := range c.Roles {
				rs[i] = string(r)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.Tenant, c.Subject, strings.Join(rs, ","), c.Issued, state)
		}
		tw.Flush()
		return 0
	default: // credentials revoke
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "logbook-server credentials revoke: give one credential ID (credentials list)")
			return 2
		}
		c, err := st.Revoke(fs.Arg(0))
		if err != nil {
			fmt.Fprintln(stderr, "logbook-server credentials revoke:", err)
			return 1
		}
		fmt.Fprintf(stdout, "revoked %s (%s in %s): refused from its next request on\n", c.ID, c.Subject, c.Tenant)
		return 0
	}
}

// Flags are serve's fleet flags.
type Flags struct {
	on   bool
	oidc string
}

// Register adds --fleet and --oidc-config to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "fleet", false, "serve a fleet: each developer sends its own enrolled credential (logbook-server enroll), each step names who sent it, and every read checks the reader's role (docs/fleet.md)")
	fs.StringVar(&f.oidc, "oidc-config", "", "trust the OIDC issuers of this JSON `FILE` (CI jobs' and people's tokens; implies --fleet; docs/fleet.md)")
}

// open is where the admin's subcommands find the fleet: the replicas'
// database when dsn is not empty, else the files of the data directory
// dir.
func open(ctx context.Context, dir, dsn string) (fleet.Keeper, func(), error) {
	if dsn == "" {
		st, err := fleet.OpenStore(dir)
		return st, func() {}, err
	}
	db, err := dbstore.Open(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	fl, err := db.Fleet(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return fl, func() { db.Close() }, nil
}

// Load is the server's fleet (nil without --fleet or --oidc-config),
// its credentials under data: with --db, server.New makes them the
// replicas' database's.
func (f *Flags) Load(data string, client *http.Client) (*server.Fleet, error) {
	if !f.on && f.oidc == "" {
		return nil, nil
	}
	st, err := fleet.OpenStore(data)
	if err != nil {
		return nil, err
	}
	fl := &server.Fleet{Store: st}
	if f.oidc == "" {
		return fl, nil
	}
	b, err := readlimit.Small(f.oidc, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--oidc-config: %w", err)
	}
	// Read strictly: a misspelt key must not silently drop a check.
	if _, err := strictjson.Parse(b, strictjson.Options{}); err != nil {
		return nil, fmt.Errorf("--oidc-config %s: %w", filepath.Base(f.oidc), err)
	}
	var cfg oidcauth.Config
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("--oidc-config %s: %w", f.oidc, err)
	}
	if len(cfg.Issuers) == 0 {
		return nil, errors.New("--oidc-config: no issuers")
	}
	if fl.OIDC, err = oidcauth.New(cfg, client, nil); err != nil {
		return nil, fmt.Errorf("--oidc-config: %w", err)
	}
	return fl, nil
}
