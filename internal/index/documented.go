package index

// DocumentedQueries are the searches docs/index.md names, for a tenant:
// the plan test holds each to an index, the benchmark times each at two
// sizes.
func DocumentedQueries(tenant string) map[string]Query {
	return map[string]Query{
		"newest":                {Tenant: tenant},
		"developer":             {Tenant: tenant, Developer: "d1"},
		"repo":                  {Tenant: tenant, Repo: "repo1"},
		"commit":                {Tenant: tenant, Commit: "c004"},
		"tool":                  {Tenant: tenant, Tool: "Bash"},
		"decision":              {Tenant: tenant, Decision: "deny"},
		"level":                 {Tenant: tenant, Level: "server"},
		"since":                 {Tenant: tenant, SinceMS: 1767225600000, UntilMS: 1769904000000},
		"page 2":                {Tenant: tenant, Cursor: cursor(1769904000000, "s-010")},
		"developer and tool":    {Tenant: tenant, Developer: "d1", Tool: "Bash"},
		"oldest":                {Tenant: tenant, Sort: SortOldest},
		"oldest, page 2":        {Tenant: tenant, Sort: SortOldest, Cursor: cursorOf(SortOldest, &Session{StartMS: 1769904000000, ID: "s-010"})},
		"oldest of a repo":      {Tenant: tenant, Repo: "repo1", Sort: SortOldest},
		"by end":                {Tenant: tenant, Sort: SortEnd},
		"by end, page 2":        {Tenant: tenant, Sort: SortEnd, Cursor: cursorOf(SortEnd, &Session{EndMS: 1769904000000, ID: "s-010"})},
		"by steps":              {Tenant: tenant, Sort: SortSteps, Tool: "Bash"},
		"by steps, page 2":      {Tenant: tenant, Sort: SortSteps, Cursor: cursorOf(SortSteps, &Session{Steps: 7, ID: "s-010"})},
		"by developer":          {Tenant: tenant, Sort: SortDeveloper},
		"by developer, page 2":  {Tenant: tenant, Sort: SortDeveloper, Cursor: cursorOf(SortDeveloper, &Session{Developer: "d1", StartMS: 1769904000000, ID: "s-010"})},
		"by repository":         {Tenant: tenant, Sort: SortRepo, Level: "server"},
		"by repository, page 2": {Tenant: tenant, Sort: SortRepo, Cursor: cursorOf(SortRepo, &Session{Repo: "repo1", StartMS: 1769904000000, ID: "s-010"})},
	}
}
