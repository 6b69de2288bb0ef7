// Package redact removes secrets from the only clear text a logbook record
// holds: a step's summary ("Bash: npm test --token abc") and its short
// metadata (command line, relative path, tool name, URL, exit code). Both
// pass through String before they are hashed; tool bodies are never stored
// in clear, only as digests.
//
// The rules follow spec §8. Each secret is replaced by the literal
// "[REDACTED]" (Mask) and everything else is left byte for byte:
//
//   - values of secret names: NAME=value, export NAME="v", NAME=$'v',
//     NAME=a\ b, --name value, --name=value, "name": "value", name: value,
//     ?name=value&, and Password=...; in connection strings. A name is
//     secret when its last word is one of password, passwd, pwd,
//     passphrase, secret, token, credential(s), auth, authorization,
//     cookie, or key with a qualifier (api_key, X-Api-Key, AccountKey; not
//     primary_key or sort_keys). Words are split at - _ . camelCase and
//     digits, so KEYBOARD, monkey, author, keyword, --keep-going and
//     input_tokens do not match. See SecretKey;
//   - header values: Authorization:, Proxy-Authorization:, Cookie:,
//     Set-Cookie: (the auth scheme, e.g. Bearer, is kept), also written as
//     one shell word (-H Authorization:\ Bearer\ xyz), standalone
//     "Bearer <token>" and "Basic <base64 user:pass>";
//   - URL passwords: scheme://user:[REDACTED]@host, for any scheme, up to
//     the last @ before the host even when the password holds @ ? # ' >;
//   - private key blocks, from BEGIN to END or, if truncated, to the end;
//   - well-known token shapes (AWS, GitHub, GitLab, Slack, npm, PyPI,
//     Anthropic, OpenAI, Stripe, Twilio, SendGrid, JWT, DigitalOcean,
//     Shopify, Discord, Google OAuth and more; see package shapes), wherever they
//     occur, even inside a path such as /tmp/ghp_xxx.txt;
//   - every rule of gitleaks' default configuration (gitleaks/rules.go,
//     generated from github.com/zricethezav/gitleaks/v8 by gitleaks/gen:
//     221 rules with their keywords, entropy floors and allowlists), with
//     a secret's end widened to & ? # / and a file extension's dot so that
//     secrets in URLs and paths are found, and run a second time over the
//     text with its %XX escapes decoded;
//   - the assignment forms of other languages: NAME := v, NAME ::= v,
//     NAME ?= v, 'name' => v, var token string = "v", const token: string
//     = "v", setProperty("X_TOKEN", "v"), <apiToken>v</apiToken>.
//
// A secret is replaced whole: a gitleaks finding is widened to the whole
// value around it, so a rule whose group is a fragment (Authress, Harness,
// Teams webhooks) leaves nothing of the key behind.
//
// The redactor runs in record-step, a process started on every agent tool
// call, so it is built for a cold start: nothing is built at init (the
// rules are static data), a byte-level prefilter and a keyword scan
// return clean text at once, and the scanner is a single pass that
// allocates only when it finds a secret. A gitleaks rule is compiled only
// when the text holds one of its keywords, every literal its regex
// requires and, for the generic assignment rules, an assignment whose
// value is not yet replaced; then once per process (compiling all 221
// would cost 13-25 ms per event). Project patterns (New) are compiled
// once, in New.
//
// There is no process-wide setting: a project's patterns live in the
// *Redactor that LoadConfig returns, which callers pass along
// (hookevent.ParseRedacted, wrap.Options, seal.Options); the package-level
// String and SecretKey apply the built-in rules only.
//
// The work is split by job into packages under this one: scan (the single
// pass: names followed by values, flags, private keys, AWS secret keys),
// names (whether a name says its value is a secret), values (reading a
// value and whether it holds one), shapes (well-known token shapes), web
// (URL passwords, auth headers, Bearer and Basic), gitleaks (gitleaks'
// rules and their runner) and ascii (byte classes). This package joins
// them: the prefilter, the passes, the project's patterns (New,
// LoadConfig) and the replacement.
//
// Known limits, chosen to keep false positives down: one-letter flags
// (mysql -pSECRET, sshpass -p x) and secrets in free prose ("the password
// is hunter2") are not recognised; an unquoted value ends at a blank that
// is not escaped with a backslash or at one of ; & , | ( ) < > } ] \ and
// quotes, so a password containing those, or one quoted only part of the
// way (pw"a b", Bearer\ "xyz"), is only partly replaced or missed; a value
// that starts like a path (/, ./, ~/) is taken for a file name. In URLs, a
// password holding an unescaped '/' is missed, and one holding ? # ' or >
// is missed or cut short where a port, a query or the end of the URL is
// more likely: when it is all digits up to the ? # ' or > (read as a port:
// https://host:8080?q=a@b), when the text after an earlier @ holds ':' or
// '=' (user:pw@host?to=a@b.c), and at a ' or > that closes a '...' or
// <...> around the URL.
package redact
