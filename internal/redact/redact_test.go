package redact

import (
	"errors"
	"testing"

	"github.com/logbook-project/logbook/internal/redact/scan"
)

// TestString pins the exact output of each rule: what is replaced and,
// just as important, what around it is kept.
func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		// NAME=value and its shell forms.
		{"export GITHUB_TOKEN=abc123 && gh pr list", "export GITHUB_TOKEN=[REDACTED] && gh pr list"},
		{"TOKEN=abc cmd args", "TOKEN=[REDACTED] cmd args"},
		{`export DB_PASSWORD="a b c"`, `export DB_PASSWORD="[REDACTED]"`},
		{"MYSQL_PWD='x y' mysql", "MYSQL_PWD='[REDACTED]' mysql"},
		{"TOKEN= cmd", "TOKEN= cmd"},
		{"TOKEN=$GH_TOKEN gh api", "TOKEN=$GH_TOKEN gh api"},
		{"TOKEN=${GH_TOKEN}", "TOKEN=${GH_TOKEN}"},
		{"TOKEN=$(gh auth token)", "TOKEN=$(gh auth token)"},
		{"TOKEN='$literal1'", "TOKEN='[REDACTED]'"},
		{"DB_PASSWORD=$'hunter2'", "DB_PASSWORD=$'[REDACTED]'"},
		{`DB_PASSWORD=$"hunter2" cmd`, `DB_PASSWORD=$"[REDACTED]" cmd`},
		{`PASSWORD=$'it\'s me' cmd`, `PASSWORD=$'[REDACTED]' cmd`},
		{`TOKEN=$"$GH_TOKEN" gh api`, `TOKEN=$"$GH_TOKEN" gh api`},
		{`DB_PASSWORD=a\ b\ c cmd`, `DB_PASSWORD=[REDACTED] cmd`},
		{"PASSWORD_FILE=/run/secrets/db", "PASSWORD_FILE=/run/secrets/db"},
		{"GOOGLE_APPLICATION_CREDENTIALS=/keys/sa.json", "GOOGLE_APPLICATION_CREDENTIALS=/keys/sa.json"},
		{"AUTH_ENABLED=true", "AUTH_ENABLED=true"},
		{"aws_secret_access_key = abc/def+ghi", "aws_secret_access_key = [REDACTED]"},
		{"env['API_TOKEN']='x1'", "env['API_TOKEN']='[REDACTED]'"},
		{"--from-literal=password=abc", "--from-literal=password=[REDACTED]"},
		{"Server=x;Password=p@ss;User=y", "Server=x;Password=[REDACTED];User=y"},
		{"AccountName=a;AccountKey=abc+/==;EndpointSuffix=core", "AccountName=a;AccountKey=[REDACTED];EndpointSuffix=core"},
		{"https://x.io/a?access_token=abc&format=json", "https://x.io/a?access_token=[REDACTED]&format=json"},
		{"https://x.io/a?sv=1&sig=abc%3D&se=2", "https://x.io/a?sv=1&sig=[REDACTED]&se=2"},
		{"signature=abc", "signature=abc"},
		// Flags.
		{"mysql --password=s3cret --user=root", "mysql --password=[REDACTED] --user=root"},
		{"run --token abc123 --verbose", "run --token [REDACTED] --verbose"},
		{`run --api-key "two words"`, `run --api-key "[REDACTED]"`},
		{"keytool -storepass changeit -alias x", "keytool -storepass [REDACTED] -alias x"},
		{"gh auth login --with-token < t.txt", "gh auth login --with-token < t.txt"},
		{"docker login --password-stdin ghcr.io", "docker login --password-stdin ghcr.io"},
		{"foo --key client2.pem", "foo --key client2.pem"},
		{"foo --key Zx81kQp0aa", "foo --key [REDACTED]"},
		{"curl -u user:pass https://x", "curl -u user:[REDACTED] https://x"},
		{"docker run -u 1000:1000 img", "docker run -u 1000:1000 img"},
		// Bare "name value".
		{"git config --global github.token Tok3nValue99", "git config --global github.token [REDACTED]"},
		{"npm config set //r.npmjs.org/:_authToken Abc123def456", "npm config set //r.npmjs.org/:_authToken [REDACTED]"},
		{"the token store keeps one token per id", "the token store keeps one token per id"},
		{"kubectl describe secret db-creds-2", "kubectl describe secret db-creds-2"},
		// Keys and headers.
		{`{"password":"hunter2","user":"bob"}`, `{"password":"[REDACTED]","user":"bob"}`},
		{`{\"password\":\"hunter2\",\"user\":\"bob\"}`, `{\"password\":\"[REDACTED]\",\"user\":\"bob\"}`},
		{"password: hunter2", "password: [REDACTED]"},
		{"password: string", "password: string"},
		{"params: { _csrf_token: csrfToken }", "params: { _csrf_token: csrfToken }"},
		{"token = ReviewTokenStore.mint(project.id)", "token = ReviewTokenStore.mint(project.id)"},
		{"bin/rails credentials:edit", "bin/rails credentials:edit"},
		{`echo "${TOKEN:-}"`, `echo "${TOKEN:-}"`},
		{"X-Api-Key: abc", "X-Api-Key: [REDACTED]"},
		{"curl -H 'Authorization: Bearer abc.def' https://x", "curl -H 'Authorization: Bearer [REDACTED]' https://x"},
		{"curl -H 'authorization:token abc' https://x", "curl -H 'authorization:token [REDACTED]' https://x"},
		{`curl -H "Authorization: Bearer $TOKEN" https://x`, `curl -H "Authorization: Bearer $TOKEN" https://x`},
		{`{"Authorization": "Basic dXNlcjpwdw==", "Accept": "*/*"}`, `{"Authorization": "Basic [REDACTED]", "Accept": "*/*"}`},
		{`curl -H "Cookie: a=1; b=2" https://x`, `curl -H "Cookie: [REDACTED]" https://x`},
		{`curl -H Authorization:\ Bearer\ abcdef0123456789XYZ https://x`, `curl -H Authorization:\ Bearer\ [REDACTED] https://x`},
		{`curl -H Cookie:\ session=abcdef0123456789 https://x`, `curl -H Cookie:\ [REDACTED] https://x`},
		{`curl -H Cookie:\ a=1\;\ b=2 https://x`, `curl -H Cookie:\ [REDACTED] https://x`},
		{`curl -H Authorization:Bearer\ abcdef0123456789XYZ https://x`, `curl -H Authorization:Bearer\ [REDACTED] https://x`},
		{`curl -H Authorization:\ Bearer\ $TOKEN https://x`, `curl -H Authorization:\ Bearer\ $TOKEN https://x`},
		{`curl -H X-Api-Key:\ abc123 https://x`, `curl -H X-Api-Key:\ [REDACTED] https://x`},
		{"Set-Cookie: sid=abc; Path=/\nnext line", "Set-Cookie: [REDACTED]\nnext line"},
		{"send Bearer abcdef123456 now", "send Bearer [REDACTED] now"},
		{"Bearer authentication is simple", "Bearer authentication is simple"},
		{"send Basic dXNlcjpwYXNz now", "send Basic [REDACTED] now"},
		{"Basic usage: run it", "Basic usage: run it"},
		{"Basic Authentication", "Basic Authentication"},
		// URLs.
		{"psql postgres://app:hunter2@db:5432/app", "psql postgres://app:[REDACTED]@db:5432/app"},
		{"mongodb+srv://u:p@ss@c.mongodb.net/db", "mongodb+srv://u:[REDACTED]@c.mongodb.net/db"},
		{"https://user@example.com/x", "https://user@example.com/x"},
		{"ssh://git@github.com/acme/app", "ssh://git@github.com/acme/app"},
		{"https://medium.com/@someone/post", "https://medium.com/@someone/post"},
		{"postgres://u:${PGPASSWORD}@db/app", "postgres://u:${PGPASSWORD}@db/app"},
		{"https://user:hun?ter2@github.com/x", "https://user:[REDACTED]@github.com/x"},
		{"https://user:pa#ss@host/", "https://user:[REDACTED]@host/"},
		{"postgres://app:it's>secret@db:5432/x", "postgres://app:[REDACTED]@db:5432/x"},
		{"https://u:p@ss?w@host/x", "https://u:[REDACTED]@host/x"},
		{"https://u:pw@host?email=a@b.com", "https://u:[REDACTED]@host?email=a@b.com"},
		{"'https://u:pw@host','x@y'", "'https://u:[REDACTED]@host','x@y'"},
		{"https://example.com/?q=a@b", "https://example.com/?q=a@b"},
		{"http://localhost:3000?email=a@b.c", "http://localhost:3000?email=a@b.c"},
		{"http://[::1]:8080#x@y", "http://[::1]:8080#x@y"},
		{"https://user@host:8080?x=a@b", "https://user@host:8080?x=a@b"},
		{"git@github.com:org/repo.git mailto:a@b.c", "git@github.com:org/repo.git mailto:a@b.c"},
		// Private keys.
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----"},
		{`"-----BEGIN PRIVATE KEY-----\nMIIEabc\n-----END PRIVATE KEY-----\n"`, `"-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----\n"`},
		{"echo '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz", "echo '-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]"},
		{"-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----"},
		{"KEY='-----BEGIN PRIVATE KEY----- MIIEabc -----END PRIVATE KEY-----'", "KEY='-----BEGIN PRIVATE KEY----- [REDACTED] -----END PRIVATE KEY-----'"},
		{`grep -rl -- "-----BEGIN RSA PRIVATE KEY-----" .`, `grep -rl -- "-----BEGIN RSA PRIVATE KEY-----" .`},
		// Token shapes, anywhere.
		{"cat /tmp/ghp_abcdefghijklmnopqrstuvwxyz0123456789.txt", "cat /tmp/[REDACTED].txt"},
		{"id AKIAIOSFODNN7EXAMPLE ok", "id [REDACTED] ok"},
		{"xAKIAIOSFODNN7EXAMPLE", "xAKIAIOSFODNN7EXAMPLE"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_-x", "jwt [REDACTED]"},
		{"sk-learn and risk-assessment-2024-document", "sk-learn and risk-assessment-2024-document"},
		// Idempotence on already redacted text.
		{"TOKEN=[REDACTED] cmd", "TOKEN=[REDACTED] cmd"},
		{"TOKEN=[REDACTED]x", "TOKEN=[REDACTED]"},
		{"u:[REDACTED]@h postgres://u:[REDACTED]@h", "u:[REDACTED]@h postgres://u:[REDACTED]@h"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestSecretKey(t *testing.T) {
	secret := []string{
		"authorization", "Authorization", "token", "password", "passwd", "secret",
		"cookie", "api_key", "apikey", "apiKey", "API-KEY", "private_key",
		"access_key", "client_secret", "clientSecret", "credential", "credentials",
		"github_token", "GITHUB_TOKEN", "X-Api-Key", "x-auth-token", "Set-Cookie",
		"AWS_SECRET_ACCESS_KEY", "PGPASSWORD", "db_password_2", "password_confirm",
		"secret_key_base", "AccountKey", "_authToken", "npm_config__auth",
		"refresh_token", "id_token", "passphrase", "pwd", "OAuth2Token",
	}
	notSecret := []string{
		"", "key", "author", "keyboard", "KEYBOARD", "monkey", "keyword", "keep-going",
		"tokenizer", "input_tokens", "max_tokens", "token_count", "eos_token",
		"password_file", "PASSWORD_FILE", "token-url", "auth_type", "public_key",
		"primary_key", "sort_keys", "cache-key", "AWS_ACCESS_KEY_ID", "signature",
		"sig", "bypass", "passport", "cookie_jar", "secretary", "passWithNoTests",
		"oauth", "session_id", "command", "file_path",
	}
	for _, name := range secret {
		if !SecretKey(name) {
			t.Errorf("SecretKey(%q) = false, want true", name)
		}
	}
	for _, name := range notSecret {
		if SecretKey(name) {
			t.Errorf("SecretKey(%q) = true, want false", name)
		}
	}
}

func TestNew(t *testing.T) {
	r, err := New([]Pattern{
		{Name: "acme ids", Regexp: `acme_[0-9a-f]{8}`},
		{Name: "acme header", Regexp: `(?i)x-acme-auth=(\S+)`},
		{Key: "seed"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"deploy acme_0123abcd now", "deploy [REDACTED] now"},
		{"X-Acme-Auth=zzz top", "X-Acme-Auth=[REDACTED] top"},
		{"ACME_SEED=abc ./run", "ACME_SEED=[REDACTED] ./run"},
		{"run --seed 42", "run --seed [REDACTED]"},
		{"TOKEN=abc", "TOKEN=[REDACTED]"}, // built-in rules still apply
		{"git status", "git status"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("r.String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !r.SecretKey("seed") || !r.SecretKey("ACME_SEED") || SecretKey("seed") {
		t.Error("extra key not applied to r.SecretKey only")
	}

	// A nil or zero Redactor applies the built-in rules.
	var nilR *Redactor
	if got := nilR.String("TOKEN=abc"); got != "TOKEN=[REDACTED]" || !nilR.SecretKey("token") {
		t.Errorf("nil Redactor: %q", got)
	}

	bad := [][]Pattern{
		{{}},
		{{Regexp: "x", Key: "y"}},
		{{Key: "has space"}},
		{{Key: "dash-ed"}},
		{{Regexp: "("}},
		{{Regexp: "a*"}},
		{{Regexp: "RED"}},
	}
	for _, p := range bad {
		if _, err := New(p); !errors.Is(err, ErrBadPattern) {
			t.Errorf("New(%+v) error = %v, want ErrBadPattern", p, err)
		}
	}
	if _, err := New([]Pattern{{Regexp: `\[REDACTED\]`}}); err != nil {
		t.Errorf("a pattern matching the whole mask is harmless, got %v", err)
	}
}

// TestNoAllocOnClean checks the promise made to record-step: clean text
// costs no allocation, whether the prefilter stops it or the scanner runs.
func TestNoAllocOnClean(t *testing.T) {
	if mayHoldSecret(cleanNoMarkers) || !mayHoldSecret(cleanCommand) {
		t.Fatal("benchmark inputs no longer exercise the prefilter and the scanner")
	}
	for _, s := range []string{cleanNoMarkers, cleanCommand} {
		if n := testing.AllocsPerRun(100, func() { String(s) }); n != 0 {
			t.Errorf("String(%q): %v allocations, want 0", s, n)
		}
	}
}

// TestPrefilterIsConservative checks, on every corpus line, that the
// prefilter never stops a line the scanner would change.
func TestPrefilterIsConservative(t *testing.T) {
	var lines []string
	for _, c := range secretCases(t) {
		lines = append(lines, c.input)
	}
	lines = append(lines, readLines(t, "clean.txt")...)
	for _, s := range lines {
		checkPrefilter(t, s)
	}
}

func checkPrefilter(t *testing.T, s string) {
	t.Helper()
	if mayHoldSecret(s) {
		return
	}
	sc := scan.New(s, nil)
	sc.Scan()
	if sp := sc.Spans(); len(sp) > 0 {
		t.Fatalf("prefilter skipped %q, which holds %q", s, s[sp[0].Start:sp[0].End])
	}
}
