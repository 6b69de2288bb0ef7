package fleet

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/instant"
)

// Prefixes of the secrets the store hands out: a reader (and a secret
// scanner) tells an enrollment code from a credential at a glance.
const (
	CodePrefix  = "lbe_"
	TokenPrefix = "lbk_"
)

// Refusals of the store: each names what was wrong with what was sent.
var (
	ErrCodeUnknown   = errors.New("enrollment code unknown (never issued, or mistyped)")
	ErrCodeUsed      = errors.New("enrollment code already used")
	ErrCodeExpired   = errors.New("enrollment code expired")
	ErrCredUnknown   = errors.New("credential unknown")
	ErrCredRevoked   = errors.New("credential revoked")
	ErrName          = errors.New("a developer name is 1-128 letters, digits, '.', '_', '@' or '-', a tenant's 1-64 of them")
	ErrCredAmbiguous = errors.New("credential id matches more than one credential")
)

// Credential is what the store keeps of an enrolled credential: never the
// secret, only its SHA-256 (the file's name).
type Credential struct {
	ID      string `json:"id"` // the first 16 hex digits of the secret's SHA-256
	Tenant  string `json:"tenant"`
	Subject string `json:"subject"`
	Roles   []Role `json:"roles"`
	Issued  string `json:"issued"`
	// Enrollment is the ID of the code it was traded for.
	Enrollment string `json:"enrollment"`
	Revoked    bool   `json:"revoked,omitempty"` // set by List for a revoked one
}

// enrollment is an issued code's file.
type enrollment struct {
	Tenant  string `json:"tenant"`
	Subject string `json:"subject"`
	Roles   []Role `json:"roles"`
	Issued  string `json:"issued"`
	Expires string `json:"expires"`
}

// Keeper keeps credentials and enrollment codes: Store, files in the
// server's data directory, or a fleet's database (server replicas). Its
// refusals are this package's Err* values.
type Keeper interface {
	Enroll(tenant, subject string, roles []Role, ttl time.Duration, now time.Time, random io.Reader) (string, error)
	Redeem(code string, now time.Time, random io.Reader) (string, Credential, error)
	Lookup(token string) (Principal, error)
	List() ([]Credential, error)
	Revoke(id string) (Credential, error)
}

// Owners keeps who started each session (Owner): the server's files
// (DATA/ID.owner) or a fleet's database. Set is called under the
// session's lock, once, for a session that has none.
type Owners interface {
	Owner(session string) (Owner, error) // the zero Owner when none
	Set(session string, o Owner) error
}

var _ Keeper = (*Store)(nil)

// Store keeps credentials and enrollment codes under DATA/fleet, each in
// a file of its own named by the SHA-256 of its secret, written with
// internal/durable (0600): a crash leaves the file whole or absent. A
// code is redeemed by renaming it to .used (one rename wins, so a code
// is used once, even by two servers on the same directory); a credential
// is revoked by renaming it to .revoked. logbook-server enroll and
// credentials write here while the server runs: the server looks at the
// credential's file on every request (one stat), so a revocation holds
// from the next request on.
type Store struct {
	dir   string
	mu    sync.Mutex
	cache map[string]Principal // secret's hash → principal, for the credentials seen
}

// OpenStore opens (creating, 0700) the store of the data directory dir.
func OpenStore(dir string) (*Store, error) {
	s := &Store{dir: filepath.Join(dir, "fleet"), cache: map[string]Principal{}}
	for _, d := range []string{s.dir, filepath.Join(s.dir, "enroll"), filepath.Join(s.dir, "credentials")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// MaxTenant is the longest tenant name: the index keeps a session's
// tenant in 64 bytes (internal/index), and a longer one left every
// session of the tenant out of its search and coverage.
const MaxTenant = 64

// ValidTenant reports whether s may name a tenant: a name of at most
// MaxTenant bytes.
func ValidTenant(s string) bool { return len(s) <= MaxTenant && ValidName(s) }

// ValidName reports whether s may name a developer (a tenant: ValidTenant).
func ValidName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._@-", c) >= 0) {
			return false
		}
	}
	return true
}

// Hash is a secret's SHA-256 in hex: what a store keeps in its place.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewSecret is prefix and 32 random bytes in base64url: a code or a
// credential.
func NewSecret(prefix string, random io.Reader) (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(random, b); err != nil {
		return "", err
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// WellFormed: prefix and 43 base64url characters (32 bytes), as
// NewSecret makes them; anything else is refused before a store is
// looked at.
func WellFormed(s, prefix string) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// Enroll issues a code for subject in tenant with roles, valid for ttl
// from now: the admin hands it to the developer, whose machine trades it
// once for a credential (Redeem).
func (s *Store) Enroll(tenant, subject string, roles []Role, ttl time.Duration, now time.Time, random io.Reader) (string, error) {
	roles, err := CheckEnroll(tenant, subject, roles, ttl)
	if err != nil {
		return "", err
	}
	code, err := NewSecret(CodePrefix, random)
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(enrollment{Tenant: tenant, Subject: subject, Roles: roles,
		Issued: instant.Format(now), Expires: instant.Format(now.Add(ttl))})
	if err := durable.WriteFileMode(filepath.Join(s.dir, "enroll", Hash(code)+".json"), b, 0o600); err != nil {
		return "", err
	}
	return code, nil
}

// Redeem trades code for a new credential: the secret (returned once,
// kept nowhere) and what the store keeps of it. An expired code is
// refused and stays unused; a code is used once.
func (s *Store) Redeem(code string, now time.Time, random io.Reader) (string, Credential, error) {
	if !WellFormed(code, CodePrefix) {
		return "", Credential{}, ErrCodeUnknown
	}
	h := Hash(code)
	path := filepath.Join(s.dir, "enroll", h+".json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(s.dir, "enroll", h+".used")); err == nil {
			return "", Credential{}, ErrCodeUsed
		}
		return "", Credential{}, ErrCodeUnknown
	}
	if err != nil {
		return "", Credential{}, err
	}
	var e enrollment
	if err := json.Unmarshal(b, &e); err != nil {
		return "", Credential{}, fmt.Errorf("enrollment %s: %w", h[:16], err)
	}
	exp, err := time.Parse(time.RFC3339Nano, e.Expires)
	if err != nil {
		return "", Credential{}, fmt.Errorf("enrollment %s: %w", h[:16], err)
	}
	if !now.Before(exp) {
		return "", Credential{}, ErrCodeExpired
	}
	if err := os.Rename(path, filepath.Join(s.dir, "enroll", h+".used")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", Credential{}, ErrCodeUsed // another redemption won
		}
		return "", Credential{}, err
	}
	if err := durable.SyncPath(filepath.Join(s.dir, "enroll")); err != nil {
		return "", Credential{}, err
	}
	tok, err := NewSecret(TokenPrefix, random)
	if err != nil {
		return "", Credential{}, err
	}
	th := Hash(tok)
	c := Credential{ID: th[:16], Tenant: e.Tenant, Subject: e.Subject, Roles: e.Roles, Issued: instant.Format(now), Enrollment: h[:16]}
	cb, _ := json.Marshal(c)
	if err := durable.WriteFileMode(filepath.Join(s.dir, "credentials", th+".json"), cb, 0o600); err != nil {
		return "", Credential{}, err
	}
	return tok, c, nil
}

// Lookup is the principal a credential's secret stands for, or
// ErrCredUnknown or ErrCredRevoked.
func (s *Store) Lookup(token string) (Principal, error) {
	if !WellFormed(token, TokenPrefix) {
		return Principal{}, ErrCredUnknown
	}
	h := Hash(token)
	path := filepath.Join(s.dir, "credentials", h+".json")
	// The file is looked at on every request: a revocation (a rename)
	// holds from the next one on.
	if _, err := os.Stat(path); err != nil {
		s.mu.Lock()
		delete(s.cache, h)
		s.mu.Unlock()
		if _, rerr := os.Stat(filepath.Join(s.dir, "credentials", h+".revoked")); rerr == nil {
			return Principal{}, ErrCredRevoked
		}
		if errors.Is(err, fs.ErrNotExist) {
			return Principal{}, ErrCredUnknown
		}
		return Principal{}, err
	}
	s.mu.Lock()
	p, ok := s.cache[h]
	s.mu.Unlock()
	if ok {
		return p, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Principal{}, err
	}
	var c Credential
	if err := json.Unmarshal(b, &c); err != nil {
		return Principal{}, fmt.Errorf("credential %s: %w", h[:16], err)
	}
	p = Principal{By: ByCredential, Tenant: c.Tenant, Subject: c.Subject, Roles: c.Roles, Credential: c.ID}
	s.mu.Lock()
	s.cache[h] = p
	s.mu.Unlock()
	return p, nil
}

// List is every credential, revoked ones marked, by tenant, subject and ID.
func (s *Store) List() ([]Credential, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, "credentials"))
	if err != nil {
		return nil, err
	}
	var out []Credential
	for _, e := range ents {
		name := e.Name()
		ext := filepath.Ext(name)
		if ext != ".json" && ext != ".revoked" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.dir, "credentials", name))
		if err != nil {
			return nil, err
		}
		var c Credential
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.Revoked = ext == ".revoked"
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Tenant != b.Tenant {
			return a.Tenant < b.Tenant
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.ID < b.ID
	})
	return out, nil
}

// Revoke revokes the credential whose ID starts with id (at least 8 hex
// digits): from the next request on, its secret is refused
// (ErrCredRevoked).
func (s *Store) Revoke(id string) (Credential, error) {
	if err := CheckCredID(id); err != nil {
		return Credential{}, err
	}
	dir := filepath.Join(s.dir, "credentials")
	m, err := filepath.Glob(filepath.Join(dir, id+"*.json"))
	if err != nil {
		return Credential{}, err
	}
	switch len(m) {
	case 0:
		if r, _ := filepath.Glob(filepath.Join(dir, id+"*.revoked")); len(r) > 0 {
			return Credential{}, ErrCredRevoked
		}
		return Credential{}, ErrCredUnknown
	case 1:
	default:
		return Credential{}, ErrCredAmbiguous
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		return Credential{}, err
	}
	var c Credential
	if err := json.Unmarshal(b, &c); err != nil {
		return Credential{}, err
	}
	if err := os.Rename(m[0], strings.TrimSuffix(m[0], ".json")+".revoked"); err != nil {
		return Credential{}, err
	}
	c.Revoked = true
	return c, durable.SyncPath(dir)
}

// CheckEnroll checks what Enroll is given, as every Keeper does, and
// returns the roles (developer when none).
func CheckEnroll(tenant, subject string, roles []Role, ttl time.Duration) ([]Role, error) {
	if !ValidTenant(tenant) || !ValidName(subject) {
		return nil, ErrName
	}
	if len(roles) == 0 {
		roles = []Role{Developer}
	}
	for _, r := range roles {
		if !ValidRole(r) {
			return nil, fmt.Errorf("role %q: want one of developer, auditor, approver, admin", r)
		}
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("ttl %v: must be positive", ttl)
	}
	return roles, nil
}

// CheckCredID checks the id Revoke is given: 8 to 64 hex digits, the
// start of a credential's SHA-256.
func CheckCredID(id string) error {
	if len(id) < 8 || len(id) > 64 || !isHex(id) {
		return fmt.Errorf("credential id %q: want 8 to 64 hex digits (logbook-server credentials list)", id)
	}
	return nil
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
