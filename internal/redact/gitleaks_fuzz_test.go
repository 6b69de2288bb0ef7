package redact

import (
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/redact/gitleaks"
	"github.com/logbook-project/logbook/internal/testkit/secretcorpus"
)

// FuzzRedactedHoldsNoRuleMatch: what String returns holds no match of any
// gitleaks rule (other than text inside a Mask), and String changes
// nothing more in it: no rule, the project's own or gitleaks', still fires.
func FuzzRedactedHoldsNoRuleMatch(f *testing.F) {
	for _, c := range secretCases(f) {
		f.Add(c.input)
	}
	for _, s := range []string{
		"export STRIPE_KEY=rk_live_" + strings.Repeat("a1B2", 6),
		"curl 'https://x/?q=ghp_" + strings.Repeat("Ab3", 12) + "&hl=en'",
		"<apiToken>hunter2hunter2</apiToken>",
		"deploy ops_eyJ" + strings.Repeat("Qx9+", 70),
		"https://mycompany.webhook.office.com/webhookb2/" + strings.Repeat("a1b2c3d4-", 4),
		"sc_abcdef.ghij.acc_0123456789.MC4CAQAwBQYDK2VwBCIEIPkX",
		"pat.AbCdEfGhIjKlMnOpQrStUv.0123456789abcdef01234567.AbCdEfGhIjKlMnOpQrSt",
		"token=" + Mask + "abc", "x%2Bghp_" + strings.Repeat("9zZ", 13),
	} {
		f.Add(s)
	}
	if c := secretcorpus.Optional(f); c != nil {
		for _, r := range c.Rules {
			for _, s := range r.Samples {
				f.Add(s.TP)
			}
			for _, fp := range r.FPs {
				f.Add(fp.Text)
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if again := String(out); again != out {
			t.Fatalf("a rule still fires on the output:\n  in: %q\n out: %q\nthen: %q", s, out, again)
		}
		ids, secrets := gitleaks.Reference(out)
		for i, secret := range secrets {
			if !strings.Contains(Mask, secret) {
				t.Fatalf("rule %s still matches %q in the output:\n in: %q\nout: %q", ids[i], secret, s, out)
			}
		}
	})
}
