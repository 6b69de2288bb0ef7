package redact

import (
	"testing"

	"github.com/logbook-project/logbook/internal/redact/names"
	"github.com/logbook-project/logbook/internal/testkit/secretcorpus"
)

// TestGitleaksTruePositives plants every true positive of gitleaks'
// default rules (the shared corpus, see secretcorpus) at every text
// placement of issue 13 and requires that none survives String. The
// record-level test (cmd/record-step) plants them in hook payloads.
func TestGitleaksTruePositives(t *testing.T) {
	c := secretcorpus.Load(t)
	total, survived := 0, 0
	rules := map[string]bool{}
	for _, p := range secretcorpus.Texts {
		planted, lost := 0, 0
		for _, r := range c.Rules {
			for _, s := range r.Samples {
				if !p.Applies(s) {
					continue
				}
				in := p.Put(s, r.ID)
				planted++
				if out := String(in); secretcorpus.Survives(out, s.Needle) {
					lost++
					rules[r.ID] = true
					t.Errorf("%s: %s survives (%s):\n in: %q\nout: %q", r.ID, s.Needle, p.Name, in, out)
				}
			}
		}
		t.Logf("%-26s %4d / %4d survive", p.Name, lost, planted)
		total += planted
		survived += lost
	}
	t.Logf("gitleaks true positives: %d of %d placements survive, from %d rules", survived, total, len(rules))
}

// fpLimit is issue 13's bar: of gitleaks' false positives that hold no
// secret-looking word, at most 15 % may be redacted.
const fpLimit = 0.15

// TestGitleaksFalsePositives measures over-redaction on gitleaks' own
// false positives. Those that hold a secret-looking word (key, token,
// secret, password...) may well be redacted by the name rules, and
// placeholders (ghp_xxxx...) may go either way; of the others at most
// fpLimit may change.
func TestGitleaksFalsePositives(t *testing.T) {
	c := secretcorpus.Load(t)
	plain, changed, placeholders, phChanged := 0, 0, 0, 0
	for _, r := range c.Rules {
		for _, fp := range r.FPs {
			if names.HasRoot(fp.Text) {
				continue
			}
			out := String(fp.Text)
			if secretcorpus.Placeholder(fp.Text) {
				placeholders++
				if out != fp.Text {
					phChanged++
				}
				continue
			}
			plain++
			if out != fp.Text {
				changed++
				t.Logf("%s: changed:\n in: %q\nout: %q", r.ID, fp.Text, out)
			}
		}
	}
	rate := float64(changed) / float64(plain)
	t.Logf("gitleaks false positives without a secret-looking word: %d of %d redacted (%.1f%%); placeholders (ghp_xxxx...) apart: %d of %d redacted; all together %d of %d (%.1f%%)",
		changed, plain, 100*rate, phChanged, placeholders, changed+phChanged, plain+placeholders, 100*float64(changed+phChanged)/float64(plain+placeholders))
	if rate > fpLimit {
		t.Errorf("over-redaction %.1f%% > %.0f%%", 100*rate, 100*fpLimit)
	}
}
