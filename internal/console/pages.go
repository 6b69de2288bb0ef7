package console

import "html/template"

// layout is every page's frame: the style sheet, the navigation a role
// allows, and sign-out (a form: a POST with the CSRF token). No script.
const layout = `{{define "page"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/ui/console.css">
<title>{{block "title" .}}logbook console{{end}}</title>{{block "head" .}}{{end}}</head>
<body>
<header><a class="brand" href="/ui/">logbook</a>
{{if .Who}}{{if .CSRF}}<nav aria-label="main">
{{if .Reader}}<a href="/ui/sessions">Sessions</a> <a href="/ui/commits">Commits</a>{{end}}
{{if .Auditor}}<a href="/ui/coverage">Coverage</a>{{end}}
{{if .Approver}}<a href="/ui/approvals">Approvals</a>{{end}}
</nav>
<form class="who" method="post" action="/ui/logout"><span>{{.Who}} · {{.Tenant}} · {{.Roles}}</span>
<input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit">Sign out</button></form>{{end}}{{end}}
</header>
<main>{{template "main" .}}</main>
</body></html>{{end}}`

func page(main string) *template.Template {
	return template.Must(template.Must(template.New("layout").Parse(layout)).Parse(main))
}

var (
	homePage = page(`{{define "main"}}<h1>Signed in as {{.Who}}</h1>
<p>Tenant <strong>{{.Tenant}}</strong>, roles <strong>{{.Roles}}</strong>.</p>
{{if .Approver}}<p><a href="/ui/approvals">The approvals queue</a>: the calls the organization policy holds for a person.</p>{{end}}
<form method="get" action="/ui/run"><label>Open a session's run <input name="session" required maxlength="128" autocomplete="off"></label>
<button type="submit">Check it here</button></form>
{{end}}`)

	approvalsPage = page(`{{define "title"}}Approvals · logbook{{end}}{{define "main"}}<h1>Held calls</h1>
{{if .Done}}<p class="done" role="status">{{.Done}}</p>{{end}}
{{if not .Rows}}<p id="empty">No call is waiting for an approver.</p>{{end}}
<ul class="held">{{range .Rows}}
<li class="call" id="call-{{.ID}}">
<p class="what"><strong>{{.Tool}}</strong> <code>{{.Summary}}</code></p>
<dl><dt>asked by</dt><dd class="requester">{{if .Requester}}{{.Requester}}{{else}}unknown{{end}}</dd>
<dt>session</dt><dd><a href="/ui/run/{{.Session}}"><code>{{.Session}}</code></a></dd>
<dt>rule</dt><dd>{{.Rule}}{{if .Reason}}: {{.Reason}}{{end}}</dd>
<dt>input</dt><dd><code class="digest">{{.Inputs}}</code></dd>
<dt>expires in</dt><dd>{{.Left}}</dd></dl>
<form method="post" action="/ui/approvals/{{.ID}}">
<input type="hidden" name="csrf" value="{{$.CSRF}}"><input type="hidden" name="inputs" value="{{.Inputs}}">
<label>Reason <input name="reason" maxlength="500"></label>
<button class="approve" name="decision" value="approve">Approve</button>
<button class="deny" name="decision" value="deny">Deny</button>
</form></li>{{end}}</ul>
{{end}}`)

	// runPage holds the checker's sections (web/index.html's ids, which
	// web/js/app.js fills in) with the pinned keys already given.
	// The record's download starts with the page (a preload that run.js's
	// fetch takes up), not after the checker's scripts have loaded.
	runPage = page(`{{define "title"}}Run {{.ID}} · logbook{{end}}{{define "head"}}
<link rel="preload" href="/ui/record/{{.ID}}" as="fetch" crossorigin>{{end}}{{define "main"}}<h1>Run <code>{{.ID}}</code></h1>
<p id="run" data-session="{{.ID}}"{{with .Entry}} data-index-verdict="{{.Verdict}}" data-index-steps="{{.Steps}}"{{end}}>Checked here, in this browser, against the server's key: the server's word is not taken.</p>
{{if .Auditor}}<p><a id="export" href="/ui/export/{{.ID}}">Download the auditor's export</a> (bundle, key, verification transcript, policy: <code>logbook-verify --bundle</code> checks it offline)</p>{{end}}
{{with .Entry}}<p id="index">The index lists it: {{.Verdict}}, {{.Steps}} steps, level {{.Level}}, developer {{.Developer}}.</p>{{end}}
<p id="disagree" class="refused" role="alert" hidden></p>
<p id="fetch" role="status"></p>
<div hidden><div id="drop"></div><input type="file" id="file"><textarea id="pubkeys">{{.Keys}}</textarea>
<textarea id="checkpoint"></textarea><textarea id="checkpointkeys"></textarea><input id="hmackey"><p id="support"></p></div>
<section id="verdict" hidden></section>
<section id="session" hidden></section>
<section id="review" hidden></section>
<section id="timeline" hidden></section>
<link rel="stylesheet" href="/style.css">
{{range .Scripts}}<script src="{{.}}"></script>
{{end}}{{end}}`)

	sessionsPageT = page(`{{define "title"}}Sessions · logbook{{end}}{{define "main"}}<h1>Sessions</h1>
<form method="get" action="/ui/sessions" class="filters">
<label>developer <input name="developer" value="{{.Q.Get "developer"}}"></label>
<label>repository <input name="repo" value="{{.Q.Get "repo"}}"></label>
<label>commit <input name="commit" value="{{.Q.Get "commit"}}"></label>
<label>tool <input name="tool" value="{{.Q.Get "tool"}}"></label>
<label>decision <input name="decision" value="{{.Q.Get "decision"}}"></label>
<label>level <input name="level" value="{{.Q.Get "level"}}"></label>
<label>since <input name="since" value="{{.Q.Get "since"}}" placeholder="2026-12-01T00:00:00Z"></label>
<label>until <input name="until" value="{{.Q.Get "until"}}"></label>
<label>sort <select name="sort" id="sort">{{range .Sorts}}<option value="{{.Value}}"{{if .Selected}} selected{{end}}>{{.Label}}</option>{{end}}</select></label>
<button type="submit">Search</button></form>
{{if not .Rows}}<p id="none">No session matches.</p>{{end}}
<div class="table"><table id="sessions"><thead><tr><th scope="col">started</th><th scope="col">session</th><th scope="col">developer</th><th scope="col">repository</th><th scope="col">steps</th><th scope="col">level</th><th scope="col">state</th><th scope="col">tools</th><th scope="col">decisions</th></tr></thead>
<tbody>{{.Rows}}</tbody></table></div>
{{if .Next}}<p><a id="next" href="{{.Next}}">Next page</a></p>{{end}}
{{if .Auditor}}{{if .Rows}}<p><a id="export-search" href="{{.Export}}">Download the auditor's export of this page</a> (a bundle per sealed session, the keys, one verification transcript, the policy)</p>{{end}}{{end}}
{{end}}`)

	coveragePage = page(`{{define "title"}}Coverage · logbook{{end}}{{define "main"}}<h1>Coverage of {{.Tenant}}</h1>
<form method="get" action="/ui/coverage"><label>silent for days <input name="days" value="{{.Days}}" size="4"></label><button type="submit">Show</button></form>
<h2>Developers who sent nothing for {{.Days}} days</h2>
{{if not .Cov.Silent}}<p id="no-silent">None.</p>{{end}}<ul id="silent">{{range .Cov.Silent}}<li>{{.Developer}}</li>{{end}}</ul>
<h2>Sessions that stopped without a SessionEnd</h2>
{{if not .Cov.Unended}}<p>None.</p>{{end}}<ul id="unended">{{range .Cov.Unended}}<li><a href="/ui/run/{{.ID}}"><code>{{.ID}}</code></a> {{.Developer}} {{.Repo}}</li>{{end}}</ul>
<h2>Outages (events lost, unsent or refused)</h2>
{{if not .Cov.Outages}}<p>None.</p>{{end}}<ul id="outages">{{range .Cov.Outages}}<li><a href="/ui/run/{{.ID}}"><code>{{.ID}}</code></a> {{.Developer}}: lost {{.Lost}}, unsent {{.Unsent}}, refused {{.Refused}}</li>{{end}}</ul>
<h2>Policy in force, by repository</h2>
<dl id="policies">{{range $repo, $ds := .Policies}}<dt>{{if $repo}}{{$repo}}{{else}}(no repository){{end}}</dt><dd>{{range $ds}}<code>{{.}}</code> {{end}}</dd>{{end}}</dl>
<p><a href="/ui/sessions?decision=deny">Sessions where a call was denied</a></p>
{{end}}`)

	commitsPage = page(`{{define "title"}}Commits · logbook{{end}}{{define "main"}}<h1>Commits</h1>
<form method="post" action="/ui/commits" class="commits"><input type="hidden" name="csrf" value="{{.CSRF}}">
<label>repository <input name="repo" value="{{.Repo}}" required></label>
<label>commits (a range: <code>git rev-list BASE..HEAD</code>, one id a line) <textarea name="commits" id="commit-list" rows="6">{{.Commits}}</textarea></label>
<label>or a PR's head commit <input name="head" value="{{.Head}}" size="42"></label>
<button type="submit">Show</button></form>
{{if .Repo}}{{if not .Rows}}<p id="none">{{if .Listed}}No commit given.{{else}}No session of {{.Repo}} names a commit.{{end}}</p>{{end}}
<div class="table"><table id="commits"><thead><tr><th scope="col">commit</th><th scope="col">session</th><th scope="col">developer</th><th scope="col">level</th></tr></thead>
<tbody>{{range .Rows}}{{$c := .}}{{if .By}}{{range .By}}<tr data-commit="{{$c.Commit}}"><td><code>{{$c.Commit}}</code>{{if $c.Head}} <small>(the head's sessions)</small>{{end}}</td><td><a href="/ui/run/{{.Session}}"><code>{{.Session}}</code></a></td><td>{{.Developer}}</td><td>{{.Level}}</td></tr>{{end}}{{else}}<tr data-commit="{{.Commit}}" class="unnamed"><td><code>{{.Commit}}</code></td><td colspan="3">no session names it</td></tr>{{end}}{{end}}</tbody></table></div>
<p>A session naming a commit is the index's word: <code>logbook-verify --commits</code> checks the binding itself (docs/commits.md).</p>{{end}}
{{end}}`)

	signedInPage = page(`{{define "main"}}<h1>Signed in as {{.Who}}</h1><p><a id="go" href="/ui/">Continue to the console</a></p>{{end}}`)

	signedOutPage = page(`{{define "main"}}<h1 id="signed-out">Signed out</h1><p><a href="/ui/login">Sign in again</a></p>{{end}}`)

	refusedPage = page(`{{define "main"}}<h1>Refused ({{.Status}})</h1><p class="refused">{{.Msg}}</p><p><a href="/ui/">Back to the console</a></p>{{end}}`)
)
