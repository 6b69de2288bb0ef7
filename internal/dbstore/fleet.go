package dbstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/instant"
)

// The fleet's tables (docs/fleet.md): what fleet.Store keeps in files
// under DATA/fleet, and the DATA/ID.owner files, kept once for every
// replica. A secret is kept only as its SHA-256 (fleet.Hash), as the
// files are named by it.
var fleetSchema = []string{
	"CREATE TABLE IF NOT EXISTS `logbook_fleet_enroll` (" +
		"`hash` CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`tenant` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`subject` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`roles` VARCHAR(255) CHARACTER SET ascii NOT NULL," +
		"`issued` VARCHAR(64) CHARACTER SET ascii NOT NULL," +
		"`expires` VARCHAR(64) CHARACTER SET ascii NOT NULL," +
		"`used` TINYINT NOT NULL DEFAULT 0," +
		"PRIMARY KEY (`hash`)) ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS `logbook_fleet_credentials` (" +
		"`hash` CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`tenant` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`subject` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`roles` VARCHAR(255) CHARACTER SET ascii NOT NULL," +
		"`issued` VARCHAR(64) CHARACTER SET ascii NOT NULL," +
		"`enrollment` CHAR(16) CHARACTER SET ascii NOT NULL," +
		"`revoked` TINYINT NOT NULL DEFAULT 0," +
		"PRIMARY KEY (`hash`)) ENGINE=InnoDB",
	// An owner's subject is an OIDC subject too (oidcauth: printable
	// UTF-8, up to 191 bytes), not only an enrolled name: an ASCII column
	// refused "dévelopeur", every event of theirs a 500.
	"CREATE TABLE IF NOT EXISTS `logbook_session_owners` (" +
		"`session` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`tenant` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`subject` VARCHAR(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL," +
		"PRIMARY KEY (`session`)) ENGINE=InnoDB",
}

// Fleet is a fleet's credentials, enrollment codes and sessions' owners
// in the replicas' database: fleet.Keeper and fleet.Owners for every
// replica at once. It caches nothing: a credential is looked up on every
// request (one primary-key SELECT), so a revocation on any replica, or
// by logbook-server credentials revoke --db, holds on every replica from
// its next request on; a code is redeemed by one UPDATE … WHERE used = 0,
// which one replica wins.
type Fleet struct{ db *sql.DB }

var (
	_ fleet.Keeper = (*Fleet)(nil)
	_ fleet.Owners = (*Fleet)(nil)
)

// Fleet is s's fleet, its tables created when they are missing.
func (s *Store) Fleet(ctx context.Context) (*Fleet, error) {
	for _, q := range fleetSchema {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("--db: create the fleet's tables: %v", err)
		}
	}
	return &Fleet{db: s.db}, nil
}

func joinRoles(roles []fleet.Role) string {
	s := make([]string, len(roles))
	for i, r := range roles {
		s[i] = string(r)
	}
	return strings.Join(s, ",")
}

func splitRoles(s string) []fleet.Role {
	var out []fleet.Role
	for _, r := range strings.Split(s, ",") {
		out = append(out, fleet.Role(r))
	}
	return out
}

// Enroll issues a code, as fleet.Store's Enroll does.
func (f *Fleet) Enroll(tenant, subject string, roles []fleet.Role, ttl time.Duration, now time.Time, random io.Reader) (string, error) {
	roles, err := fleet.CheckEnroll(tenant, subject, roles, ttl)
	if err != nil {
		return "", err
	}
	code, err := fleet.NewSecret(fleet.CodePrefix, random)
	if err != nil {
		return "", err
	}
	_, err = f.db.Exec("INSERT INTO `logbook_fleet_enroll` (`hash`, `tenant`, `subject`, `roles`, `issued`, `expires`) VALUES (?, ?, ?, ?, ?, ?)",
		fleet.Hash(code), tenant, subject, joinRoles(roles), instant.Format(now), instant.Format(now.Add(ttl)))
	if err != nil {
		return "", err
	}
	return code, nil
}

// Redeem trades code for a credential: the code is marked used and the
// credential written in one transaction, and of two replicas redeeming
// one code at once, the one whose UPDATE … WHERE used = 0 changes no row
// is refused (fleet.ErrCodeUsed).
func (f *Fleet) Redeem(code string, now time.Time, random io.Reader) (string, fleet.Credential, error) {
	if !fleet.WellFormed(code, fleet.CodePrefix) {
		return "", fleet.Credential{}, fleet.ErrCodeUnknown
	}
	h := fleet.Hash(code)
	var tenant, subject, roles, expires string
	var used bool
	err := f.db.QueryRow("SELECT `tenant`, `subject`, `roles`, `expires`, `used` FROM `logbook_fleet_enroll` WHERE `hash` = ?", h).
		Scan(&tenant, &subject, &roles, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fleet.Credential{}, fleet.ErrCodeUnknown
	}
	if err != nil {
		return "", fleet.Credential{}, err
	}
	if used {
		return "", fleet.Credential{}, fleet.ErrCodeUsed
	}
	exp, err := time.Parse(time.RFC3339Nano, expires)
	if err != nil {
		return "", fleet.Credential{}, fmt.Errorf("enrollment %s: %w", h[:16], err)
	}
	if !now.Before(exp) {
		return "", fleet.Credential{}, fleet.ErrCodeExpired
	}
	tok, err := fleet.NewSecret(fleet.TokenPrefix, random)
	if err != nil {
		return "", fleet.Credential{}, err
	}
	th := fleet.Hash(tok)
	c := fleet.Credential{ID: th[:16], Tenant: tenant, Subject: subject, Roles: splitRoles(roles), Issued: instant.Format(now), Enrollment: h[:16]}
	tx, err := f.db.Begin()
	if err != nil {
		return "", fleet.Credential{}, err
	}
	defer tx.Rollback()
	res, err := tx.Exec("UPDATE `logbook_fleet_enroll` SET `used` = 1 WHERE `hash` = ? AND `used` = 0", h)
	if err != nil {
		return "", fleet.Credential{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return "", fleet.Credential{}, fleet.ErrCodeUsed // another redemption won
	}
	if _, err := tx.Exec("INSERT INTO `logbook_fleet_credentials` (`hash`, `tenant`, `subject`, `roles`, `issued`, `enrollment`) VALUES (?, ?, ?, ?, ?, ?)",
		th, c.Tenant, c.Subject, roles, c.Issued, c.Enrollment); err != nil {
		return "", fleet.Credential{}, err
	}
	if err := tx.Commit(); err != nil {
		return "", fleet.Credential{}, err
	}
	return tok, c, nil
}

// Lookup is the principal a credential's secret stands for, read from
// the database on every call.
func (f *Fleet) Lookup(token string) (fleet.Principal, error) {
	if !fleet.WellFormed(token, fleet.TokenPrefix) {
		return fleet.Principal{}, fleet.ErrCredUnknown
	}
	h := fleet.Hash(token)
	var tenant, subject, roles string
	var revoked bool
	err := f.db.QueryRow("SELECT `tenant`, `subject`, `roles`, `revoked` FROM `logbook_fleet_credentials` WHERE `hash` = ?", h).
		Scan(&tenant, &subject, &roles, &revoked)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fleet.Principal{}, fleet.ErrCredUnknown
	case err != nil:
		return fleet.Principal{}, err
	case revoked:
		return fleet.Principal{}, fleet.ErrCredRevoked
	}
	return fleet.Principal{By: fleet.ByCredential, Tenant: tenant, Subject: subject, Roles: splitRoles(roles), Credential: h[:16]}, nil
}

const credCols = "SELECT `hash`, `tenant`, `subject`, `roles`, `issued`, `enrollment`, `revoked` FROM `logbook_fleet_credentials` "

// scanCreds reads credCols's rows, and each one's full hash.
func scanCreds(rows *sql.Rows) ([]fleet.Credential, []string, error) {
	defer rows.Close()
	var out []fleet.Credential
	var hashes []string
	for rows.Next() {
		var c fleet.Credential
		var roles string
		if err := rows.Scan(&c.ID, &c.Tenant, &c.Subject, &roles, &c.Issued, &c.Enrollment, &c.Revoked); err != nil {
			return nil, nil, err
		}
		hashes = append(hashes, c.ID)
		c.ID, c.Roles = c.ID[:16], splitRoles(roles)
		out = append(out, c)
	}
	return out, hashes, rows.Err()
}

// List is every credential, revoked ones marked, by tenant, subject and
// ID.
func (f *Fleet) List() ([]fleet.Credential, error) {
	rows, err := f.db.Query(credCols + "ORDER BY `tenant`, `subject`, `hash`")
	if err != nil {
		return nil, err
	}
	list, _, err := scanCreds(rows)
	return list, err
}

// Revoke revokes the credential whose SHA-256 starts with id, for every
// replica from its next request on.
func (f *Fleet) Revoke(id string) (fleet.Credential, error) {
	if err := fleet.CheckCredID(id); err != nil {
		return fleet.Credential{}, err
	}
	// id is hex (CheckCredID): no LIKE wildcard in it.
	rows, err := f.db.Query(credCols+"WHERE `hash` LIKE ?", id+"%")
	if err != nil {
		return fleet.Credential{}, err
	}
	all, hashes, err := scanCreds(rows)
	if err != nil {
		return fleet.Credential{}, err
	}
	var live []fleet.Credential
	var h string
	for i, c := range all {
		if !c.Revoked {
			live, h = append(live, c), hashes[i]
		}
	}
	switch {
	case len(live) > 1:
		return fleet.Credential{}, fleet.ErrCredAmbiguous
	case len(live) == 0 && len(all) > 0:
		return fleet.Credential{}, fleet.ErrCredRevoked
	case len(live) == 0:
		return fleet.Credential{}, fleet.ErrCredUnknown
	}
	if _, err := f.db.Exec("UPDATE `logbook_fleet_credentials` SET `revoked` = 1 WHERE `hash` = ?", h); err != nil {
		return fleet.Credential{}, err
	}
	c := live[0]
	c.Revoked = true
	return c, nil
}

// Owner is who started session id (the zero Owner when nobody in the
// fleet did).
func (f *Fleet) Owner(session string) (fleet.Owner, error) {
	var o fleet.Owner
	err := f.db.QueryRow("SELECT `tenant`, `subject` FROM `logbook_session_owners` WHERE `session` = ?", session).Scan(&o.Tenant, &o.Subject)
	if errors.Is(err, sql.ErrNoRows) {
		return fleet.Owner{}, nil
	}
	return o, err
}

// Set makes o the owner of session, once: the INSERT fails on a session
// that has one, and Set then succeeds only when it is o already (a
// retried event of its owner), so that two replicas cannot give one
// session two owners.
func (f *Fleet) Set(session string, o fleet.Owner) error {
	_, err := f.db.Exec("INSERT INTO `logbook_session_owners` (`session`, `tenant`, `subject`) VALUES (?, ?, ?)", session, o.Tenant, o.Subject)
	if err == nil {
		return nil
	}
	had, herr := f.Owner(session)
	if herr == nil && had == o {
		return nil
	}
	if herr == nil && had != (fleet.Owner{}) {
		return fmt.Errorf("session %s: already owned by %s in %s: %w", session, had.Subject, had.Tenant, fleet.ErrNotOwner)
	}
	return err
}
