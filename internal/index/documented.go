package index

// DocumentedQueries are the searches docs/index.md names, for a tenant:
// the plan test holds each to an index, the benchmark times each at two
// sizes.
func DocumentedQueries(tenant string) map[string]Query {
	return map[string]Query{
		"newest":             {Tenant: tenant},
		"developer":          {Tenant: tenant, Developer: "d1"},
		"repo":               {Tenant: tenant, Repo: "repo1"},
		"commit":             {Tenant: tenant, Commit: "c004"},
		"tool":               {Tenant: tenant, Tool: "Bash"},
		"decision":           {Tenant: tenant, Decision: "deny"},
		"level":              {Tenant: tenant, Level: "server"},
		"since":              {Tenant: tenant, SinceMS: 1767225600000, UntilMS: 1769904000000},
		"page 2":             {Tenant: tenant, Cursor: cursor(1769904000000, "s-010")},
		"developer and tool": {Tenant: tenant, Developer: "d1", Tool: "Bash"},
	}
}
