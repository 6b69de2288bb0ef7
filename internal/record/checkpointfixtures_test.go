package record_test

import (
	"crypto/ed25519"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// Checkpoint fixtures (docs/checkpoint.md) live in
// testdata/records/checkpoint/: records, their options ("checkpoint" and
// "checkpointKey" besides the policy keys), and the signed notes under
// notes/. The server key is fixtureKey("server"), pinned as
// keys/server.key.pub or as the note verifier key keys/server.vkey.

const (
	checkpointDir = "records/checkpoint" // relative to testdata/
	serverOrigin  = "logbook-fixture-server"
	serverPub     = "keys/server.key.pub"
	serverVkey    = "keys/server.vkey"
	checkpointAt  = "2026-03-01T10:00:10.5Z"
)

// stepHash returns steps[i].hash of a record.
func stepHash(rec []byte, i int) string {
	v := must1(strictjson.Parse(rec, strictjson.Options{}))
	h, _ := v.Get("steps").Items[i].GetString("hash")
	return h
}

func must1[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func checkpointFixtures() map[string][]byte {
	pk, server, other := fixtureKey("fixture"), fixtureKey("server"), fixtureKey("other")
	serverKey := server.Public().(ed25519.PublicKey)
	privPEM, pubPEM := must2(keys.MarshalPair(server, serverKey))
	vkey := must1(checkpoint.VerifierKey(serverOrigin, serverKey))
	files := map[string][]byte{
		"keys/server.key": privPEM, serverPub: pubPEM, serverVkey: []byte(vkey + "\n"),
	}
	good := assemble(baseSteps(), pk)
	n := len(baseSteps())
	sign := func(s ed25519.PrivateKey, c checkpoint.Checkpoint) []byte {
		c.Time, c.Redact = checkpointAt, sum("")
		if c.Session == "" {
			c.Session = "fixture-session"
		}
		return must1(must1(checkpoint.NewSigner(serverOrigin, s)).Sign(c))
	}
	notes := map[string][]byte{
		"full.checkpoint":          sign(server, checkpoint.Checkpoint{Size: int64(n), Tip: stepHash(good, n-1)}),
		"early.checkpoint":         sign(server, checkpoint.Checkpoint{Size: 3, Tip: stepHash(good, 2)}),
		"other-key.checkpoint":     sign(other, checkpoint.Checkpoint{Size: int64(n), Tip: stepHash(good, n-1)}),
		"other-session.checkpoint": sign(server, checkpoint.Checkpoint{Session: "another-session", Size: int64(n), Tip: stepHash(good, n-1)}),
	}
	// A server's record that says where the hooks came from: the note
	// logbook-server --managed-settings appends after the first event.
	hooksNote := func(source, reason string) chain.Step {
		d := strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str("logbook.hooks")},
			strictjson.Member{Key: "source", Value: strictjson.Str(source)},
			strictjson.Member{Key: "file", Value: strictjson.Str("/etc/claude-code/managed-settings.json")},
			strictjson.Member{Key: "sha256", Value: strictjson.Str(sum("{}"))})
		if reason != "" {
			d.Members = append(d.Members, strictjson.Member{Key: "reason", Value: strictjson.Str(reason)})
		}
		return chain.Step{At: "2026-03-01T10:00:00Z", Kind: "note", Summary: "hooks: " + source, Data: d}
	}
	withNote := func(note chain.Step) []byte {
		steps := baseSteps()
		steps = append(steps[:1], append([]chain.Step{note}, steps[1:]...)...)
		return assemble(steps, pk)
	}
	managed, unmanaged := withNote(hooksNote("managed", "")), withNote(hooksNote("unmanaged", "allowManagedHooksOnly is not true"))
	notes["managed.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: int64(n + 1), Tip: stepHash(managed, n)})
	notes["managed-early.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: 3, Tip: stepHash(managed, 2)})
	notes["unmanaged.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: int64(n + 1), Tip: stepHash(unmanaged, n)})
	// A fleet's server's record (docs/fleet.md): each event step names
	// the developer whose credential sent it; a note of the server's own
	// namespace names nobody.
	withActors := func(second, tenant string) []byte {
		steps := baseSteps()
		for i := range steps {
			who := fleet.Principal{By: fleet.ByCredential, Tenant: "acme", Subject: "dev1", Roles: []fleet.Role{fleet.Developer}, Credential: "3f2a9c0d11e4b5a6"}
			user := "alice"
			if i == 3 && second != "" && second != "-" {
				who.Subject, who.Tenant, who.Credential, user = second, tenant, "77e0c1d2a3b4c5d6", ""
			}
			if i == 0 && second == "-" {
				// A credential naming no developer: it once passed as
				// no owner yet, the steps after it naming the owner.
				who.Subject, who.Tenant = "", ""
			}
			m := fleet.Member(who, user)
			steps[i].Data.Members = append(steps[i].Data.Members, m)
		}
		return assemble(steps, pk)
	}
	attested, mismatch, otherTenant := withActors("", ""), withActors("dev2", "acme"), withActors("dev1", "other")
	nameless := withActors("-", "acme")
	notes["attested.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: int64(n), Tip: stepHash(attested, n-1)})
	notes["attested-early.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: 3, Tip: stepHash(attested, 2)})
	notes["mismatch.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: int64(n), Tip: stepHash(mismatch, n-1)})
	notes["other-tenant.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: int64(n), Tip: stepHash(otherTenant, n-1)})
	notes["nameless.checkpoint"] = sign(server, checkpoint.Checkpoint{Size: int64(n), Tip: stepHash(nameless, n-1)})
	full := string(notes["full.checkpoint"])
	// Edited after signing: the signature no longer covers the text.
	notes["edited.checkpoint"] = []byte(strings.Replace(full, "size 5\n", "size 4\n", 1))
	// Signed by the server, but its key line names another key.
	kl := checkpoint.Checkpoint{Origin: serverOrigin, Session: "fixture-session", Size: int64(n), Tip: stepHash(good, n-1),
		Time: checkpointAt, Redact: sum(""), KeyID: checkpoint.KeyID(other.Public().(ed25519.PublicKey))}
	notes["key-line.checkpoint"] = signRaw(server, string(kl.Text()))
	for name, b := range notes {
		files[checkpointDir+"/notes/"+name] = b
	}
	// The agent's forgeries: its own key, a cut tail or a re-chained step.
	cut := must(tamper.Apply(good, tamper.CutTail(2), tamper.FixCountAndTip, tamper.Resign(pk)))
	rechained := must(tamper.Apply(good, tamper.EditSummary(3, "nothing happened here"), tamper.Relink, tamper.FixCountAndTip, tamper.Resign(pk)))
	opt := func(key string, names ...string) options {
		var paths []string
		for _, n := range names {
			paths = append(paths, checkpointDir+"/notes/"+n)
		}
		return options{checkpoint: paths, checkpointKey: []string{key}}
	}
	type fixture struct {
		rec []byte
		opt options
	}
	fx := map[string]fixture{
		"good_server_full.json":         {good, opt(serverPub, "full.checkpoint")},
		"good_server_vkey.json":         {good, opt(serverVkey, "early.checkpoint", "full.checkpoint")},
		"good_local_early_only.json":    {good, opt(serverPub, "early.checkpoint")},
		"good_server_cut_to_early.json": {cut, opt(serverPub, "early.checkpoint")}, // every step it holds was checkpointed

		"fail_CHECKPOINT_INVALID_other_key.json":      {good, opt(serverPub, "other-key.checkpoint")},
		"fail_CHECKPOINT_INVALID_edited.json":         {good, opt(serverPub, "edited.checkpoint")},
		"fail_CHECKPOINT_INVALID_key_line.json":       {good, opt(serverVkey, "key-line.checkpoint")},
		"fail_CHECKPOINT_INVALID_second_of_two.json":  {good, opt(serverPub, "full.checkpoint", "other-key.checkpoint")},
		"fail_CHECKPOINT_MISMATCH_other_session.json": {good, opt(serverPub, "other-session.checkpoint")},
		"fail_CHECKPOINT_MISMATCH_rechained.json":     {rechained, opt(serverPub, "full.checkpoint")},
		"fail_TRUNCATED_cut_tail.json":                {cut, opt(serverPub, "full.checkpoint")},
		"fail_TRUNCATED_after_early_passes.json":      {cut, opt(serverVkey, "early.checkpoint", "full.checkpoint")},

		"good_server_managed.json":              {managed, requireManaged(opt(serverPub, "managed.checkpoint"))},
		"fail_HOOKS_NOT_MANAGED_local.json":     {managed, requireManaged(opt(serverPub, "managed-early.checkpoint"))},
		"fail_HOOKS_NOT_MANAGED_no_note.json":   {good, requireManaged(opt(serverPub, "full.checkpoint"))},
		"fail_HOOKS_NOT_MANAGED_unmanaged.json": {unmanaged, requireManaged(opt(serverPub, "unmanaged.checkpoint"))},

		"good_server_attested.json":               {attested, requireAttested(opt(serverPub, "attested.checkpoint"))},
		"good_server_actors_not_required.json":    {mismatch, opt(serverPub, "mismatch.checkpoint")},
		"fail_ACTOR_UNATTESTED_no_actor.json":     {good, requireAttested(opt(serverPub, "full.checkpoint"))},
		"fail_ACTOR_UNATTESTED_local.json":        {attested, requireAttested(opt(serverPub, "attested-early.checkpoint"))},
		"fail_ACTOR_MISMATCH_two_developers.json": {mismatch, requireAttested(opt(serverPub, "mismatch.checkpoint"))},
		"fail_ACTOR_MISMATCH_other_tenant.json":   {otherTenant, requireAttested(opt(serverPub, "other-tenant.checkpoint"))},
		"fail_ACTOR_UNATTESTED_nameless.json":     {nameless, requireAttested(opt(serverPub, "nameless.checkpoint"))},
	}
	for name, f := range fx {
		files[checkpointDir+"/"+name] = f.rec
		files[checkpointDir+"/options/"+name] = f.opt.json()
	}
	return files
}

func requireManaged(o options) options { o.requireManaged = true; return o }

func requireAttested(o options) options { o.requireAttested = true; return o }

func must2(a, b []byte, err error) ([]byte, []byte) {
	if err != nil {
		panic(err)
	}
	return a, b
}

func signRaw(priv ed25519.PrivateKey, text string) []byte {
	return must1(must1(checkpoint.NewSigner(serverOrigin, priv)).SignText(text))
}
