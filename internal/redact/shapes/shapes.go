// Package shapes finds credentials by their well-known shapes (AWS,
// GitHub, GitLab, Slack, npm, PyPI, Anthropic, OpenAI, Stripe, Twilio,
// SendGrid, JWT, DigitalOcean, Shopify, Discord, Google OAuth and more):
// a vendor's fixed prefix and a body of given bytes and length, wherever
// it occurs, even inside a path such as /tmp/ghp_xxx.txt.
//
// The tables are static data (no code runs at package init), and a finder
// remembers the long runs it has read, so that a scan stays linear on
// hostile input.
package shapes

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
)

// charset selects the bytes a token body may hold.
type charset uint8

const (
	csUpper  charset = 1 << iota // A-Z
	csLower                      // a-z
	csDigit                      // 0-9
	csUnder                      // _
	csDash                       // -
	csHex                        // 0-9 a-f only (overrides the others)
	csB64                        // + / =
	csUpDig  = csUpper | csDigit
	csAlnum  = csUpper | csLower | csDigit
	csWord   = csAlnum | csUnder
	csURLB64 = csAlnum | csUnder | csDash
)

func (cs charset) has(c byte) bool {
	if cs&csHex != 0 {
		return ascii.IsHex(c)
	}
	switch {
	case ascii.IsUpper(c):
		return cs&csUpper != 0
	case ascii.IsLower(c):
		return cs&csLower != 0
	case ascii.IsDigit(c):
		return cs&csDigit != 0
	case c == '_':
		return cs&csUnder != 0
	case c == '-':
		return cs&csDash != 0
	case c == '+' || c == '/' || c == '=':
		return cs&csB64 != 0
	}
	return false
}

// shape is a well-known credential format: a fixed prefix and a body of
// given bytes and length. Prefixes are case-sensitive, as vendors issue them.
type shape struct {
	prefix   string
	body     charset
	min, max int  // body length; max 0 means unbounded
	digit    bool // the body must hold a digit, to keep ordinary words out
}

// Google API keys, Hugging Face and Sentry tokens are left to
// gitleaks' rules (gitleaks/rules.go), whose exact lengths and allowlists
// of published example keys keep identifiers such as hf_requiredTypes out.
//
// The shape tables are static data (no code runs at package init), one
// per first byte so that token tries only the few shapes that can match.
// Minimum lengths sit below the issued lengths so that truncated copies are
// still caught, but high enough that words and identifiers never match.
// Longer prefixes come before their own prefixes (sk-ant- before sk-).
var (
	shapesAUpper = [...]shape{
		// AWS access key ids: a 4-letter type and 16 upper-case base32.
		{"AKIA", csUpDig, 16, 16, false},
		{"ASIA", csUpDig, 16, 16, false},
		{"ABIA", csUpDig, 16, 16, false},
		{"ACCA", csUpDig, 16, 16, false},
		{"AC", csHex, 32, 32, false},                // Twilio account SID
		{"AGE-SECRET-KEY-1", csUpDig, 50, 0, false}, // age identity
		{"ATATT3", csURLB64 | csB64, 50, 0, false},  // Atlassian API token
	}
	shapesSUpper = [...]shape{
		{"SK", csHex, 32, 32, false}, // Twilio API key SID
	}
	shapesGLower = [...]shape{
		{"github_pat_", csWord, 40, 0, false},  // GitHub fine-grained PAT
		{"ghp_", csAlnum, 30, 0, false},        // GitHub classic PAT
		{"gho_", csAlnum, 30, 0, false},        // GitHub OAuth
		{"ghu_", csAlnum, 30, 0, false},        // GitHub user-to-server
		{"ghs_", csAlnum, 30, 0, false},        // GitHub server-to-server
		{"ghr_", csAlnum, 30, 0, false},        // GitHub refresh
		{"glpat-", csURLB64, 20, 0, false},     // GitLab PAT
		{"gldt-", csURLB64, 20, 0, false},      // GitLab deploy token
		{"glrt-", csURLB64, 20, 0, false},      // GitLab runner token
		{"glptt-", csURLB64, 20, 0, false},     // GitLab pipeline trigger
		{"glc_", csWord | csB64, 32, 0, false}, // Grafana cloud
		{"glsa_", csWord, 32, 0, false},        // Grafana service account
		{"gsk_", csAlnum, 40, 0, false},        // Groq
	}
	shapesXLower = [...]shape{
		{"xoxb-", csAlnum | csDash, 20, 0, true}, // Slack bot
		{"xoxp-", csAlnum | csDash, 20, 0, true}, // Slack user
		{"xoxa-", csAlnum | csDash, 20, 0, true}, // Slack app
		{"xoxr-", csAlnum | csDash, 20, 0, true}, // Slack refresh
		{"xoxs-", csAlnum | csDash, 20, 0, true}, // Slack session
		{"xoxe-", csAlnum | csDash, 20, 0, true}, // Slack config
		{"xapp-", csAlnum | csDash, 20, 0, true}, // Slack app-level
		{"xai-", csAlnum, 60, 0, false},          // xAI
	}
	shapesNLower = [...]shape{
		{"npm_", csAlnum, 36, 0, false}, // npm
		{"ntn_", csAlnum, 40, 0, true},  // Notion
	}
	shapesPLower = [...]shape{
		{"pypi-", csURLB64, 50, 0, false}, // PyPI
		{"pplx-", csAlnum, 40, 0, false},  // Perplexity
	}
	shapesSLower = [...]shape{
		{"sk-ant-", csURLB64, 20, 0, false}, // Anthropic
		{"sk-", csURLB64, 20, 0, true},      // OpenAI (sk-, sk-proj-, sk-svcacct-)
		{"sk_live_", csAlnum, 16, 0, false}, // Stripe secret
		{"sk_test_", csAlnum, 16, 0, false}, // Stripe test secret
		{"shpat_", csHex, 32, 0, false},     // Shopify admin token
		{"shpss_", csHex, 32, 0, false},     // Shopify shared secret
		{"shpca_", csHex, 32, 0, false},     // Shopify custom app
		{"shppa_", csHex, 32, 0, false},     // Shopify private app
		{"sq0atp-", csURLB64, 22, 0, false}, // Square access token
		{"sq0csp-", csURLB64, 40, 0, false}, // Square OAuth secret
	}
	shapesRLower = [...]shape{
		{"rk_live_", csAlnum, 16, 0, false}, // Stripe restricted
		{"rk_test_", csAlnum, 16, 0, false}, // Stripe restricted test
		{"r8_", csAlnum, 30, 0, true},       // Replicate
		{"rubygems_", csHex, 48, 0, false},  // RubyGems
	}
	shapesWLower = [...]shape{
		{"whsec_", csAlnum | csB64, 24, 0, false}, // Stripe webhook secret
	}
	shapesHLower = [...]shape{
		{"hvs.", csURLB64, 24, 0, false}, // HashiCorp Vault service
		{"hvb.", csURLB64, 24, 0, false}, // HashiCorp Vault batch
		{"hvr.", csURLB64, 24, 0, false}, // HashiCorp Vault recovery
		{"hooks.slack.com/services/", csURLB64 | csB64, 20, 0, false},
	}
	shapesDLower = [...]shape{
		{"dop_v1_", csHex, 64, 64, false},     // DigitalOcean PAT
		{"doo_v1_", csHex, 64, 64, false},     // DigitalOcean OAuth
		{"dor_v1_", csHex, 64, 64, false},     // DigitalOcean refresh
		{"dapi", csHex, 32, 32, false},        // Databricks
		{"dckr_pat_", csURLB64, 27, 0, false}, // Docker Hub
		{"discord.com/api/webhooks/", csURLB64 | csB64, 20, 0, false},
		{"discordapp.com/api/webhooks/", csURLB64 | csB64, 20, 0, false},
	}
	shapesYLower = [...]shape{
		{"ya29.", csURLB64, 20, 0, false}, // Google OAuth access token
	}
	shapesLLower = [...]shape{
		{"lin_api_", csAlnum, 32, 0, false}, // Linear
	}
	shapesPUpper = [...]shape{
		{"PMAK-", csAlnum | csDash, 50, 0, false}, // Postman
	}
	shapesNUpper = [...]shape{
		{"NRAK-", csUpDig, 27, 0, false}, // New Relic
	}
	shapesFLower = [...]shape{
		{"figd_", csURLB64, 30, 0, false}, // Figma
	}
	shapesOLower = [...]shape{
		{"oy2", csLower | csDigit, 43, 43, false}, // NuGet
	}
	shapesKLower = [...]shape{
		{"key-", csHex, 32, 32, false}, // Mailgun
	}
)

// shapesFor returns the shapes whose prefix starts with c.
func shapesFor(c byte) []shape {
	switch c {
	case 'A':
		return shapesAUpper[:]
	case 'S':
		return shapesSUpper[:]
	case 'g':
		return shapesGLower[:]
	case 'x':
		return shapesXLower[:]
	case 'n':
		return shapesNLower[:]
	case 'p':
		return shapesPLower[:]
	case 's':
		return shapesSLower[:]
	case 'r':
		return shapesRLower[:]
	case 'w':
		return shapesWLower[:]
	case 'h':
		return shapesHLower[:]
	case 'd':
		return shapesDLower[:]
	case 'y':
		return shapesYLower[:]
	case 'l':
		return shapesLLower[:]
	case 'P':
		return shapesPUpper[:]
	case 'N':
		return shapesNUpper[:]
	case 'f':
		return shapesFLower[:]
	case 'o':
		return shapesOLower[:]
	case 'k':
		return shapesKLower[:]
	}
	return nil
}

// shapeSeconds[c] lists the bytes that can follow c at the start of a
// well-known token (the shape tables, "SG." for SendGrid, "eyJ" for JWTs,
// and M/N/O + D/T/j/z, the base64 of a Discord user id). run calls token
// only for these pairs, which skips nearly every ordinary word.
// TestShapeTables keeps it in step with the tables.
var shapeSeconds = [256]string{
	'A': "BCGKST", 'S': "GK", 'g': "hils", 'x': "ao", 'n': "pt", 'p': "py",
	's': "hkq", 'r': "8ku", 'w': "h", 'h': "ov", 'd': "acio", 'y': "a",
	'l': "i", 'P': "M", 'N': "DRTjz", 'f': "i", 'o': "y", 'k': "e",
	'e': "y", 'M': "DTjz", 'O': "DTjz",
}

// MayStart reports whether a well-known token can start at s[i].
func MayStart(s string, i int) bool {
	sec := shapeSeconds[s[i]]
	if sec == "" || i+1 >= len(s) {
		return false
	}
	for k := 0; k < len(sec); k++ { // at most 7 bytes: cheaper than a call
		if sec[k] == s[i+1] {
			return true
		}
	}
	return false
}

// Memo remembers the last long runs End read in one string. Its zero
// value is ready; use one per string.
type Memo struct {
	runs [4]runMemo
	next int
}

// End returns the end of a well-known credential starting at s[i], or -1.
// The caller guarantees that i starts a word (s[i-1] is not alphanumeric)
// and passes the same m for every call on s.
func End(s string, i int, m *Memo) int {
	f := finder{s, m}
	return f.token(i)
}

// finder is one call of End.
type finder struct {
	s string
	m *Memo
}

func (sc *finder) token(i int) int {
	s := sc.s
	c := s[i]
	if c == 'e' {
		return sc.jwt(i)
	}
	if c == 'S' && strings.HasPrefix(s[i:], "SG.") {
		return sc.sendgrid(i)
	}
	if c == 'M' || c == 'N' || c == 'O' {
		if e := sc.discordBot(i); e > 0 {
			return e
		}
	}
	list := shapesFor(c)
	for k := range list {
		sh := &list[k]
		// Compare the second byte first: it rejects almost every word
		// without the cost of a full prefix comparison.
		if i+1 >= len(s) || s[i+1] != sh.prefix[1] || !strings.HasPrefix(s[i:], sh.prefix) {
			continue
		}
		b := i + len(sh.prefix) // start of the body
		var j int
		var digit bool
		if sh.max == 0 {
			end, lastDigit := sc.run(b, sh.body)
			j, digit = end, lastDigit >= b
		} else {
			for j = b; j < len(s) && sh.body.has(s[j]) && j-b < sh.max; j++ {
				digit = digit || ascii.IsDigit(s[j])
			}
		}
		// A long body of digits alone is a number (ntn_1234...), not a key.
		if j-b < sh.min || (sh.digit && !digit) || (j < len(s) && ascii.IsAlnum(s[j])) || (j-b >= 30 && ascii.IsDigits(s[b:j])) || placeholderBody(s[b:j]) {
			continue
		}
		return j
	}
	return -1
}

// runMemo is the last maximal run of one charset that run found. Every
// position inside it ends at the same place, so a token start repeated
// inside one long run ("sk-sk-sk-...", "eyJ-eyJ-...") does not rescan it:
// this keeps the scanner linear on hostile input.
type runMemo struct {
	cs                    charset
	start, end, lastDigit int
}

// run returns the end of the run of bytes in cs starting at i, and the
// index of its last digit (-1 if none).
func (sc *finder) run(i int, cs charset) (end, lastDigit int) {
	for k := range sc.m.runs {
		if m := &sc.m.runs[k]; m.end > 0 && m.cs == cs && m.start <= i && i < m.end {
			return m.end, m.lastDigit
		}
	}
	s := sc.s
	end, lastDigit = i, -1
	for end < len(s) && cs.has(s[end]) {
		if ascii.IsDigit(s[end]) {
			lastDigit = end
		}
		end++
	}
	if end-i >= 16 { // only long runs are worth remembering
		sc.m.runs[sc.m.next%len(sc.m.runs)] = runMemo{cs, i, end, lastDigit}
		sc.m.next++
	}
	return end, lastDigit
}

// runEnd is run without the digit.
func (sc *finder) runEnd(i int, cs charset) int {
	end, _ := sc.run(i, cs)
	return end
}

// jwt matches header.payload[.signature...]: base64url JSON objects start
// with "eyJ". JWE tokens have five parts, so any number of further parts is taken.
func (sc *finder) jwt(i int) int {
	s := sc.s
	if !strings.HasPrefix(s[i:], "eyJ") {
		return -1
	}
	j := sc.runEnd(i, csURLB64)
	if j-i < 10 || j >= len(s) || s[j] != '.' {
		return -1
	}
	k := sc.runEnd(j+1, csURLB64)
	if k-j-1 < 10 {
		return -1
	}
	for k < len(s) && s[k] == '.' {
		k = sc.runEnd(k+1, csURLB64)
	}
	return k
}

// sendgrid matches SG.<22>.<43>.
func (sc *finder) sendgrid(i int) int {
	s := sc.s
	j := sc.runEnd(i+3, csURLB64)
	if n := j - i - 3; n < 16 || n > 32 || j >= len(s) || s[j] != '.' {
		return -1
	}
	k := sc.runEnd(j+1, csURLB64)
	if n := k - j - 1; n < 30 || n > 60 {
		return -1
	}
	return k
}

// discordBot matches <user id, base64: 23-28>.<timestamp: 6-7>.<hmac: 27-40>.
func (sc *finder) discordBot(i int) int {
	s := sc.s
	j := sc.runEnd(i, csURLB64)
	if n := j - i; n < 23 || n > 28 || j >= len(s) || s[j] != '.' {
		return -1
	}
	k := sc.runEnd(j+1, csURLB64)
	if n := k - j - 1; n < 6 || n > 7 || k >= len(s) || s[k] != '.' {
		return -1
	}
	m := sc.runEnd(k+1, csURLB64)
	if n := m - k - 1; n < 27 || n > 40 {
		return -1
	}
	if m < len(s) && ascii.IsAlnum(s[m]) {
		return -1
	}
	return m
}

// placeholderBody reports a documentation placeholder (ghp_xxxx...,
// glsa_XXXX..._AAAA): one byte makes at least half of the body. A
// generated token never looks like that.
func placeholderBody(body string) bool {
	var n [256]uint16
	most := uint16(0)
	for i := 0; i < len(body); i++ {
		n[body[i]]++
		most = max(most, n[body[i]])
	}
	return len(body) > 0 && 2*int(most) >= len(body)
}
