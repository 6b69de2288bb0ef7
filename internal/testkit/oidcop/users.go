package oidcop

// User is one person (or CI job) the test provider knows: its subject is
// its name, and its ID and access tokens carry Tenant in the "tenant"
// claim, Roles in the "roles" claim and Groups ("TENANT/ROLE" for each
// role) in the "groups" claim.
type User struct {
	Name   string
	Tenant string
	Roles  []string
}

// Password is every user's password on the login form and every user's
// client secret for the client-credentials grant.
const Password = "logbook-test-password"

// Audience is the audience of the access tokens Token mints unless it
// names another: the one a logbook-server under test is configured with.
const Audience = "logbook"

// ConsoleClient is the client ID (and ConsoleSecret its secret) of the
// web client the console logs people in with: authorization code with
// PKCE, redirect URIs on 127.0.0.1 or localhost at any port.
const (
	ConsoleClient = "logbook-console"
	ConsoleSecret = "logbook-console-secret"
)

// Users are the provider's people: two tenants, each role in acme, and
// a developer and an auditor in other (for cross-tenant refusals), and
// a CI job identity in acme.
var Users = []User{
	{Name: "dev1", Tenant: "acme", Roles: []string{"developer"}},
	{Name: "dev2", Tenant: "acme", Roles: []string{"developer"}},
	{Name: "aud1", Tenant: "acme", Roles: []string{"auditor"}},
	{Name: "appr1", Tenant: "acme", Roles: []string{"approver"}},
	{Name: "admin1", Tenant: "acme", Roles: []string{"admin"}},
	{Name: "ci1", Tenant: "acme", Roles: []string{"developer"}},
	{Name: "dev3", Tenant: "other", Roles: []string{"developer"}},
	{Name: "aud3", Tenant: "other", Roles: []string{"auditor"}},
}

// Lookup returns the user named name.
func Lookup(name string) (User, bool) {
	for _, u := range Users {
		if u.Name == name {
			return u, true
		}
	}
	return User{}, false
}

// Claims are the claims u's tokens carry beyond the standard ones.
func (u User) Claims() map[string]any {
	groups := make([]string, len(u.Roles))
	for i, r := range u.Roles {
		groups[i] = u.Tenant + "/" + r
	}
	return map[string]any{
		"tenant": u.Tenant,
		"roles":  append([]string(nil), u.Roles...),
		"groups": groups,
	}
}
