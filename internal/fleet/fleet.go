// Package fleet says who sent each event to a logbook-server shared by a
// fleet, and what each of them may do there: principals (a developer's
// enrolled credential, an OIDC token's subject, the shared token of a
// server without a fleet), their tenant and roles, the one authorization
// rule every route asks (Authorize), the actor the server writes into
// every step it appends (actor.go), and the credentials and enrollment
// codes kept in the server's data directory (store.go). OIDC tokens are
// checked in internal/fleet/oidc, with go-oidc. Time and I/O are
// arguments; every refusal is a typed error the server names (docs/fleet.md).
package fleet

import (
	"errors"
	"fmt"
	"slices"
)

// Role is what a principal may do within its tenant.
type Role string

const (
	// Developer writes the sessions it starts and reads its own.
	Developer Role = "developer"
	// Auditor reads every session of its tenant and writes none.
	Auditor Role = "auditor"
	// Approver decides the calls an organization policy parks for a
	// person (the console's approvals), in its tenant.
	Approver Role = "approver"
	// Admin manages its tenant's enrollment and retention; it reads no
	// session by being admin (give it auditor too for that).
	Admin Role = "admin"
)

// Roles lists the roles, in the order docs/fleet.md gives them.
var Roles = []Role{Developer, Auditor, Approver, Admin}

// ValidRole reports whether r is one of Roles.
func ValidRole(r Role) bool { return slices.Contains(Roles, r) }

// How a principal proved who it is: the actor's "by".
const (
	ByCredential = "credential" // an enrolled credential (store.go)
	ByOIDC       = "oidc"       // an OIDC token checked against its issuer's keys
	ByToken      = "token"      // the server's one shared token (logbook-server --token-file)
)

// Principal is an authenticated caller.
type Principal struct {
	By      string // ByCredential, ByOIDC or ByToken
	Tenant  string // "" only for ByToken
	Subject string // the developer's (or CI job's) name; "" only for ByToken
	Roles   []Role
	// Credential is the enrolled credential's ID (ByCredential); Issuer
	// the token's issuer (ByOIDC).
	Credential, Issuer string
}

// Has reports whether p holds role r.
func (p Principal) Has(r Role) bool { return slices.Contains(p.Roles, r) }

// Owner is who started a session: its first event's attested actor. The
// zero Owner is a session nobody in the fleet started (recorded before
// the fleet, or with the shared token).
type Owner struct {
	Tenant, Subject string
}

// OwnerOf is the owner p becomes of a session it starts.
func OwnerOf(p Principal) Owner { return Owner{Tenant: p.Tenant, Subject: p.Subject} }

// Action is what a principal asks to do with a session (or its tenant).
type Action string

const (
	// Read is GET of a session's record, checkpoint, record-checkpoint,
	// tlog-proof, or its row in a search.
	Read Action = "read"
	// Write is an event appended to a session.
	Write Action = "write"
	// Approve is a decision on a parked call of the session.
	Approve Action = "approve"
	// Manage is enrollment, credentials and retention of the tenant
	// (owner's Tenant; Subject unused).
	Manage Action = "manage"
)

// Refusals of Authorize: each is a *Denied wrapping one of these.
var (
	ErrOtherTenant = errors.New("it is another tenant's")
	ErrNotOwner    = errors.New("the session was started by another developer")
	ErrRole        = errors.New("no role that allows it")
	ErrNoOwner     = errors.New("the session has no owner in the fleet (recorded before it, or with the shared token)")
)

// Denied is Authorize's refusal.
type Denied struct {
	Principal Principal
	Action    Action
	Err       error // one of the Err* above
}

func (e *Denied) Error() string {
	who := e.Principal.Subject
	if who == "" {
		who = e.Principal.By
	}
	return fmt.Sprintf("%s may not %s: %v", who, e.Action, e.Err)
}

func (e *Denied) Unwrap() error { return e.Err }

// Authorize is the one rule of the fleet: may p do a to the session owned
// by o (for Manage, o names the tenant)? It returns nil or a *Denied.
//
//   - the shared token (ByToken) may do what a server without a fleet lets
//     it do (the server's own --token/--read-token checks still apply),
//     but write into a session someone in the fleet owns, or manage a
//     tenant;
//   - nothing crosses tenants;
//   - a developer writes a session it starts (zero owner) or owns, and
//     reads the sessions it owns;
//   - an auditor reads every session of its tenant, fleet-owned;
//   - an approver approves calls in its tenant's sessions;
//   - an admin manages its tenant.
func Authorize(p Principal, a Action, o Owner) error {
	if p.By == ByToken {
		// The shared token writes only what no one in the fleet owns:
		// whoever holds it must not slip events into a developer's session.
		if a == Write && o != (Owner{}) {
			return &Denied{Principal: p, Action: a, Err: ErrNotOwner}
		}
		// Nor does it manage a tenant: a server without a fleet has no
		// enrollment, and the hooks' token minting an admin's code for
		// any tenant would cross every tenant.
		// Nor approve a held call: the agent holds the hooks' token, and
		// an approval must come from a person other than the asker.
		if a == Manage || a == Approve {
			return &Denied{Principal: p, Action: a, Err: ErrRole}
		}
		return nil
	}
	deny := func(err error) error { return &Denied{Principal: p, Action: a, Err: err} }
	zero := o == Owner{}
	// A role that writes nothing is refused as such, wherever it writes.
	if a == Write && !p.Has(Developer) {
		return deny(ErrRole)
	}
	if !zero && o.Tenant != p.Tenant {
		return deny(ErrOtherTenant)
	}
	switch a {
	case Write:
		if !zero && o.Subject != p.Subject {
			return deny(ErrNotOwner)
		}
		return nil
	case Read:
		if zero {
			return deny(ErrNoOwner)
		}
		if p.Has(Auditor) {
			return nil
		}
		if p.Has(Developer) {
			if o.Subject != p.Subject {
				return deny(ErrNotOwner)
			}
			return nil
		}
		return deny(ErrRole)
	case Approve:
		if zero {
			return deny(ErrNoOwner)
		}
		if p.Has(Approver) {
			return nil
		}
		return deny(ErrRole)
	case Manage:
		if o.Tenant == "" {
			return deny(ErrNoOwner)
		}
		if p.Has(Admin) {
			return nil
		}
		return deny(ErrRole)
	}
	return deny(fmt.Errorf("unknown action %q", a))
}
