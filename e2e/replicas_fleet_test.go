package e2e

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestReplicasFleet is issue 36's must-show: a fleet on replicas. 200
// developers of tenant acme and one of tenant globex are enrolled in the
// replicas' database (17 by logbook-server enroll --db, the others by
// its keeper, dbstore.Fleet), and trade their codes by POST /v1/enroll
// on any of three replicas (--db --fleet); 16 of them send their own
// session's events with their own credential round-robin over the
// replicas while two are killed with SIGKILL (TestReplicasKill's load).
// Every record passes logbook-verify --require-attested, read from
// another replica than sealed it, and every step names its developer as
// attested actor; no acknowledged event is lost, no checkpoint forks.
// On every replica, another developer's event into a session is refused
// (ACTOR_MISMATCH), and another developer's or tenant's reads of it on
// every read route (record, checkpoint, record-checkpoint, tlog-proof,
// attestation, the search, coverage, hold); a credential revoked by
// logbook-server credentials revoke --db is refused by every replica.
func TestReplicasFleet(t *testing.T) {
	t.Parallel()
	dsn := testmysql.DSN(t)
	dir := t.TempDir()
	key := newServerKey(t, dir)
	ctx := context.Background()
	const developers, clients, events = 200, 16, 60

	server := func(args ...string) string {
		t.Helper()
		n := 1 // --db after the subcommand's words, before its flags and ID
		if args[0] == "credentials" {
			n = 2
		}
		out, err := exec.Command(filepath.Join(bin, "logbook-server"), slices.Concat(args[:n], []string{"--db", dsn}, args[n:])...).Output()
		if err != nil {
			t.Fatalf("logbook-server %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	names := make([]string, developers)
	codes := make([]string, developers+1)
	for d := range developers {
		names[d] = fmt.Sprintf("dev%03d", d)
	}
	for d := range clients {
		codes[d] = server("enroll", "--tenant", "acme", "--developer", names[d])
	}
	codes[developers] = server("enroll", "--tenant", "globex", "--developer", "spy")
	st, err := dbstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keeper, err := st.Fleet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for d := clients; d < developers; d++ {
		if codes[d], err = keeper.Enroll("acme", names[d], nil, time.Hour, time.Now(), rand.Reader); err != nil {
			t.Fatal(err)
		}
	}

	addrs := []string{freePort(t), freePort(t), freePort(t)}
	r := startReplicas(t, len(addrs), func(i int) *liveServer {
		return startServer(t, addrs[i], filepath.Join(dir, fmt.Sprint("data", i)), key, nil, "--db", dsn, "--fleet")
	})
	call := func(method, url, auth string, body []byte) (int, string) {
		return bearerCall(t, method, url, auth, body)
	}
	// Each code traded on replica d%3, 8 at a time; then once more on
	// the next replica, refused.
	creds := make([]string, len(codes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for d, code := range codes {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			body, _ := json.Marshal(map[string]string{"code": code})
			status, out := call("POST", r.url(d%3)+"/v1/enroll", "", body)
			var c struct{ Credential string }
			if json.Unmarshal([]byte(out), &c); status != 200 || c.Credential == "" {
				t.Errorf("enroll %d: %d %s", d, status, out)
			}
			creds[d] = c.Credential
			if status, out := call("POST", r.url((d+1)%3)+"/v1/enroll", "", body); status != 403 || !strings.Contains(out, "ENROLL_CODE_USED") {
				t.Errorf("code %d traded twice: %d %s", d, status, out)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if list := server("credentials", "list", "--json"); strings.Count(list, `"id"`) != developers+1 {
		t.Fatalf("credentials list --db: %d credentials, want %d", strings.Count(list, `"id"`), developers+1)
	}

	sessions := make([]string, clients)
	for c := range clients {
		sessions[c] = names[c] + "-session"
	}
	r.load(sessions, creds[:clients], events)
	// Replica 1, killed for good by load, starts again: every replica
	// answers the refusals.
	r.reps[1] = r.start(1)

	victim, other, spy := sessions[0], creds[1], creds[developers]
	for i := range addrs {
		u := r.url(i)
		if status, out := call("POST", u+"/v1/hooks/claude-code", other, toolEvent(victim, 1000)); status != 403 || !strings.Contains(out, "ACTOR_MISMATCH") {
			t.Errorf("replica %d: dev001's event into dev000's session: %d %s", i, status, out)
		}
		for _, route := range []string{"record", "checkpoint", "record-checkpoint", "tlog-proof", "attestation"} {
			for who, auth := range map[string]string{"dev001": other, "globex's spy": spy} {
				if status, out := call("GET", u+"/v1/sessions/"+victim+"/"+route, auth, nil); status != 403 {
					t.Errorf("replica %d: %s reads dev000's %s: %d %s", i, who, route, status, out)
				}
			}
		}
		for who, auth := range map[string]string{"dev001": other, "globex's spy": spy} {
			if status, out := call("PUT", u+"/v1/sessions/"+victim+"/hold", auth, []byte(`{"reason":"x"}`)); status != 403 {
				t.Errorf("replica %d: %s holds dev000's session: %d %s", i, who, status, out)
			}
			if status, out := call("GET", u+"/v1/coverage", auth, nil); status != 403 {
				t.Errorf("replica %d: %s reads coverage: %d %s", i, who, status, out)
			}
			if status, out := call("GET", u+"/v1/sessions", auth, nil); status != 200 || strings.Contains(out, victim) {
				t.Errorf("replica %d: %s's search: %d, names dev000's session: %v", i, who, status, strings.Contains(out, victim))
			}
		}
	}

	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sealed := map[string]int{}
	for c, session := range sessions {
		steps := r.seal(db, c, session, creds[c], creds[c], key, "--require-attested")
		n := 0
		for _, s := range steps {
			// The server's own steps (logbook.*) and the gate's name no
			// sender, as logbook-verify --require-attested skips them.
			if s.Kind == "gate" || strings.HasPrefix(s.Data.Event, "logbook.") {
				continue
			}
			n++
			if a := s.Data.Actor.Attested; a.By != "credential" || a.Tenant != "acme" || a.Subject != names[c] {
				t.Fatalf("%s: step %d's attested actor is %+v, want %s of acme", session, s.Seq, a, names[c])
			}
		}
		sealed[session] = len(steps)
		if n < events+1 {
			t.Fatalf("%s: %d steps name an actor, want the %d events and SessionEnd", session, n, events)
		}
	}
	// The shared index (MySQL on --db): each owner finds its session on
	// every replica, whichever recorded it, sealed with all its steps
	// (an entry never goes back to a replica's earlier state).
	for i := range addrs {
		for c, session := range sessions {
			var got struct {
				Sessions []struct {
					ID, Developer, Verdict string
					Steps                  int
				}
			}
			for try := 0; ; try++ {
				status, out := call("GET", r.url(i)+"/v1/sessions", creds[c], nil)
				json.Unmarshal([]byte(out), &got)
				if status == 200 && len(got.Sessions) == 1 && got.Sessions[0].ID == session && got.Sessions[0].Developer == names[c] &&
					got.Sessions[0].Verdict == "sealed" && got.Sessions[0].Steps == sealed[session] {
					break
				}
				if try == 100 {
					t.Fatalf("replica %d: %s's search: %d %s, want %s sealed at %d steps", i, names[c], status, out, session, sealed[session])
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}

	// Revoked by the command on the database: refused on every replica.
	list := server("credentials", "list", "--json")
	var cs []struct{ ID, Subject string }
	json.Unmarshal([]byte(list), &cs)
	for _, c := range cs {
		if c.Subject == "spy" {
			server("credentials", "revoke", c.ID)
		}
	}
	for i := range addrs {
		if status, out := call("GET", r.url(i)+"/v1/sessions", spy, nil); status != 401 || !strings.Contains(out, "CREDENTIAL_REVOKED") {
			t.Errorf("replica %d: a revoked credential: %d %s", i, status, out)
		}
	}
}
