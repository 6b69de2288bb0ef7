package e2e

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// layout is where the page puts things at the window's size.
type layout struct {
	VerdictTop    float64 `json:"verdictTop"`
	VerdictBottom float64 `json:"verdictBottom"`
	Height        int     `json:"height"` // the whole page, px
	Rows          int     `json:"rows"`   // timeline rows drawn
	FirstSeq      string  `json:"firstSeq"`
	Where         string  `json:"where"`
}

func (b *browser) layout(tb testing.TB) layout {
	l, err := evalJS[layout](b, `(() => {
		window.scrollTo(0, 0);
		const r = document.getElementById('verdict').getBoundingClientRect();
		const rows = document.querySelectorAll('#timeline tbody tr');
		const where = document.querySelector('#timeline .pager .where');
		return {verdictTop: r.top, verdictBottom: r.bottom, height: document.documentElement.scrollHeight,
			rows: rows.length, firstSeq: rows.length ? rows[0].querySelector('td.seq').textContent : '',
			where: where ? where.textContent : ''};
	})()`)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// TestBrowserBundleAndLongRecord: the page opens a hand-over bundle as
// its record (and refuses one whose signerKey did not sign it); at
// 1280×900 the verdict is on the first screen, above the input fields;
// a 400-step record's timeline is paged 50 steps at a time, so the page
// stays short.
func TestBrowserBundleAndLongRecord(t *testing.T) {
	t.Parallel()
	rec, err := reviewtest.Record(reviewtest.Repeat(400))
	if err != nil {
		t.Fatal(err)
	}
	_, pubPEM, err := keys.MarshalPair(reviewtest.Key, reviewtest.Key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	_, otherPEM, _ := keys.MarshalPair(other, other.Public().(ed25519.PublicKey))
	dir := t.TempDir()
	good, err := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(pubPEM), Checkpoints: [][]byte{[]byte("a checkpoint note\n")}})
	if err != nil {
		t.Fatal(err)
	}
	swapped, _ := bundle.Write(&bundle.Bundle{Record: rec, SignerKey: string(otherPEM)})
	recPath, goodPath, swappedPath := filepath.Join(dir, "long.record.json"), filepath.Join(dir, "s1.bundle.json"), filepath.Join(dir, "swapped.bundle.json")
	writeFile(t, recPath, rec)
	writeFile(t, goodPath, good)
	writeFile(t, swappedPath, swapped)

	b := newBrowser(t)
	b.viewport(t, 1280, 900)
	got, _ := b.pick(t, goodPath, string(pubPEM))
	if got.OK != "true" || !strings.Contains(got.Verdict, "pinned (one of the keys above)") || !strings.Contains(got.Verdict, "1 checkpoint(s)") ||
		!strings.Contains(got.Verdict, "s1.bundle.json") {
		t.Errorf("bundle: the page shows %+v", got)
	}
	got, _ = b.pick(t, goodPath, "")
	if got.OK != "false" || got.Code != "" || !strings.Contains(got.Verdict, "Not checked") || !strings.Contains(got.Verdict, "needs --trust KEYS") {
		t.Errorf("bundle, no key pinned: %+v", got)
	}
	got, _ = b.pick(t, swappedPath, string(pubPEM))
	if got.OK != "false" || got.Code != "BUNDLE_KEY_MISMATCH" {
		t.Errorf("bundle whose signerKey did not sign: %+v", got)
	}
	broken := filepath.Join(dir, "broken.bundle.json")
	writeFile(t, broken, bytes.Replace(good, []byte(`"signerKey"`), []byte(`"signerKey2"`), 1))
	if got, _ = b.pick(t, broken, string(pubPEM)); got.Code != "BUNDLE_INVALID" || !strings.Contains(got.Verdict, `unknown member "signerKey2"`) {
		t.Errorf("broken bundle: %+v", got)
	}

	got, _ = b.pick(t, recPath, string(pubPEM))
	l := b.layout(t)
	if got.OK != "true" || l.VerdictTop < 0 || l.VerdictBottom > 900 {
		t.Errorf("verdict at %.0f–%.0f px of a 900 px window", l.VerdictTop, l.VerdictBottom)
	}
	if l.Rows != 50 || l.FirstSeq != "0" || !strings.HasPrefix(l.Where, "steps 0–49 of 400") {
		t.Errorf("first timeline page: %+v", l)
	}
	if _, err := evalJS[bool](b, `(document.querySelector('#timeline .pager .next').click(), true)`); err != nil {
		t.Fatal(err)
	}
	if l2 := b.layout(t); l2.Rows != 50 || l2.FirstSeq != "50" {
		t.Errorf("second timeline page: %+v", l2)
	}
	if l.Height > 16000 {
		t.Errorf("a 400-step record is a %d px page", l.Height)
	}
	// A filtered view keeps the session's turn numbers (issue 21, item 3):
	// the failed call of turn 2 shows under "turn 2".
	twoTurns, err := reviewtest.Record([]string{
		`{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"first"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"a1","tool_input":{"command":"ls"}}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"a1","tool_input":{"command":"ls"},"tool_response":"x"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"second"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"b1","tool_input":{"command":"make lint"}}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"b1","tool_input":{"command":"make lint"},"error":"Exit code 2"}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	tt := filepath.Join(dir, "turns.record.json")
	writeFile(t, tt, twoTurns)
	b.open(t, tt)
	turns, err := evalJS[[]string](b, `(document.querySelector('#review button[data-filter="failed"]').click(),
		[...document.querySelectorAll('#review .turn-no')].map((e) => e.textContent))`)
	if err != nil || len(turns) != 1 || turns[0] != "turn 2" {
		t.Errorf("--only failed on the page: turns %v (%v), want [turn 2]", turns, err)
	}
	report(t, fmt.Sprintf("page at 1280×900: verdict at %.0f–%.0f px; a 400-step record is a %d px page (timeline 50 steps a page, review 200 call rows a batch)", l.VerdictTop, l.VerdictBottom, l.Height))
	b.checkQuiet(t)
}

// TestBrowserBundleSaysWhatTheCLISays: the page says of a bundle what
// logbook-verify --bundle says (issue 32, item 6). With no key pasted it
// judges none, as the command will not without --trust (exit 2): a bundle
// re-signed by another key, with that key as its signerKey, is not shown
// Accepted; with the signer's key, each bundle fixture and the re-signed
// bundle get the command's verdict and code.
func TestBrowserBundleSaysWhatTheCLISays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	_, otherPEM, _ := keys.MarshalPair(other, other.Public().(ed25519.PublicKey))
	resigned, err := reviewtest.RecordWith(reviewtest.Session, other)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := bundle.Write(&bundle.Bundle{Record: resigned, SignerKey: string(otherPEM)})
	if err != nil {
		t.Fatal(err)
	}
	resignedPath := filepath.Join(dir, "resigned.bundle.json")
	writeFile(t, resignedPath, rb)
	files, _ := filepath.Glob("../testdata/bundles/*.json")
	if len(files) < 10 {
		t.Fatalf("%d bundle fixtures", len(files))
	}
	nokey, err := bundle.Write(&bundle.Bundle{Record: resigned, SignerKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"})
	if err != nil {
		t.Fatal(err)
	}
	nokeyPath := filepath.Join(dir, "signer-key-unreadable.bundle.json")
	writeFile(t, nokeyPath, nokey)
	files = append(files, resignedPath, nokeyPath)
	signer := "../testdata/bundles/signer.pub"
	pubPEM, err := os.ReadFile(signer)
	if err != nil {
		t.Fatal(err)
	}
	// cli is logbook-verify --bundle's exit status and first line.
	cli := func(args ...string) (int, string) {
		out, err := exec.Command(filepath.Join(bin, "logbook-verify"), args...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, strings.SplitN(string(out), "\n", 2)[0]
	}
	b := newBrowser(t)
	for _, f := range files {
		name := filepath.Base(f)
		if status, line := cli("--bundle", f); status != 2 || !strings.Contains(line, "--bundle needs --trust KEYS") {
			t.Fatalf("%s: logbook-verify --bundle, no --trust: %d %s", name, status, line)
		}
		if got, _ := b.pick(t, f, ""); got.OK != "false" || got.Code != "" || !strings.Contains(got.Verdict, "Not checked") ||
			!strings.Contains(got.Verdict, "needs --trust KEYS") || got.Session {
			t.Errorf("%s, no key: the page shows %+v", name, got)
		}
		status, line := cli("--bundle", f, "--trust", signer)
		wantCode := ""
		if status == 1 {
			wantCode = strings.SplitN(strings.TrimPrefix(line, "REFUSED "), ":", 2)[0]
		} else if status != 0 {
			t.Fatalf("%s: logbook-verify --bundle --trust: %d %s", name, status, line)
		}
		got, _ := b.pick(t, f, string(pubPEM))
		if got.OK != fmt.Sprint(status == 0) || got.Code != wantCode {
			t.Errorf("%s: logbook-verify says %q, the page ok=%s code=%q", name, line, got.OK, got.Code)
		}
		t.Logf("%s: %s", name, line)
	}
}
