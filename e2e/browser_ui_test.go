package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// screenshotDir is where the UI test leaves its screenshots:
// $LOGBOOK_SCREENSHOT_DIR, else logbook-web-screenshots in the temp dir.
func screenshotDir(tb testing.TB) string {
	dir := os.Getenv("LOGBOOK_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "logbook-web-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// shown is what the page shows after a record was picked.
type shown struct {
	OK       string `json:"ok"`   // the verdict box's data-ok
	Code     string `json:"code"` // its data-code
	Verdict  string `json:"verdict"`
	Session  bool   `json:"session"`  // the session header is shown
	Timeline bool   `json:"timeline"` // the timeline is shown
	Rows     int    `json:"rows"`     // timeline rows
	Support  string `json:"support"`
}

// pick loads the page afresh, pastes pubPEM into the key field, picks the
// file through the file input as a person would, waits for the verdict,
// and returns what the page shows and a full-page PNG screenshot.
func (b *browser) pick(tb testing.TB, path, pubPEM string) (shown, []byte) {
	b.load(tb)
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := evalJS[chromedp.Void](b, `document.getElementById('pubkeys').value = `+jsString(pubPEM)); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	err = chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{abs}),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="done"]`)),
	)
	if err != nil {
		tb.Fatalf("picking %s in the page: %v", path, err)
	}
	s := b.shown(tb)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.Fatal(err)
	}
	return s, png
}

// drop drops the file on the page's drop zone as a drag and drop from
// the desktop would, and returns what the page shows then.
func (b *browser) drop(tb testing.TB, path string) shown {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = evalJS[chromedp.Void](b, `(() => {
		document.body.dataset.state = 'dropping';
		const dt = new DataTransfer();
		dt.items.add(new File([`+bytesExpr(data)+`], `+jsString(filepath.Base(path))+`, {type: 'application/json'}));
		document.getElementById('drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`)
	if err != nil {
		tb.Fatal(err)
	}
	return b.waitShown(tb)
}

// typeKeys replaces the pinned-key field's text as typing would, and
// returns what the page shows once it has checked the record again.
func (b *browser) typeKeys(tb testing.TB, text string) shown {
	_, err := evalJS[chromedp.Void](b, `(() => {
		document.body.dataset.state = 'typing';
		const f = document.getElementById('pubkeys');
		f.value = `+jsString(text)+`;
		f.dispatchEvent(new Event('input', {bubbles: true}));
	})()`)
	if err != nil {
		tb.Fatal(err)
	}
	return b.waitShown(tb)
}

func (b *browser) waitShown(tb testing.TB) shown {
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`body[data-state="done"]`))); err != nil {
		tb.Fatal(err)
	}
	return b.shown(tb)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shown reads what the page shows.
func (b *browser) shown(tb testing.TB) shown {
	s, err := evalJS[shown](b, `(() => {
		const v = document.getElementById('verdict');
		return {ok: v.dataset.ok, code: v.dataset.code, verdict: v.innerText,
			session: !document.getElementById('session').hidden,
			timeline: !document.getElementById('timeline').hidden,
			rows: document.querySelectorAll('#timeline tbody tr').length,
			support: document.getElementById('support').innerText};
	})()`)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// sealedSession replays a synthesized session through record-step and seals it
// with the fixture key; it returns the record's path.
func sealedSession(t *testing.T, name, goal string) string {
	s := synthSession(t, name)
	dir := t.TempDir()
	replay(t, s, dir, 1)
	id := head(s.events[0]).Session
	out := filepath.Join(dir, "record.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", id, "--key", "../testdata/keys/fixture.key", "--out", out, "--goal", goal)
	return out
}

// TestBrowserScreenshots picks a real session's record in the page, pinned
// to its signer, and a tampered copy of it; it checks what the page shows
// against logbook-verify and leaves a screenshot of each in
// screenshotDir (web/screenshots/ holds copies).
func TestBrowserScreenshots(t *testing.T) {
	t.Parallel()
	rec := sealedSession(t, "tool_heavy", "Fix the negative sums in tally")
	pub, err := os.ReadFile("../testdata/keys/fixture.key.pub")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	tampered, err := tamper.Apply(data, tamper.EditSummary(4, "PostToolUse Bash: go test ./... (all passed)"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "tampered.record.json")
	writeFile(t, bad, tampered)

	b := newBrowser(t)
	dir := screenshotDir(t)
	var paths []string

	want := verify(t, rec, "../testdata/keys/fixture.key.pub")
	got, png := b.pick(t, rec, string(pub))
	if got.OK != "true" || got.Code != "" || !got.Session || !got.Timeline || int64(got.Rows) != *want.StepCount {
		t.Errorf("accepted record: the page shows %+v; logbook-verify says %v", got, want)
	}
	for _, s := range []string{"Accepted", *want.RecordID, *want.KeyID, "pinned (one of the keys above)"} {
		if !strings.Contains(got.Verdict, s) {
			t.Errorf("accepted record: the verdict does not show %q:\n%s", s, got.Verdict)
		}
	}
	paths = append(paths, savePNG(t, dir, "accepted.png", png))

	want = verify(t, bad, "../testdata/keys/fixture.key.pub")
	got, png = b.pick(t, bad, string(pub))
	if want.code() != "CHAIN_BROKEN" || got.OK != "false" || got.Code != want.code() || got.Session || got.Timeline {
		t.Errorf("tampered record: the page shows %+v; logbook-verify says %v", got, want)
	}
	if !strings.Contains(got.Verdict, "Refused") || !strings.Contains(got.Verdict, "steps[4].hash does not recompute") {
		t.Errorf("tampered record: the verdict reads:\n%s", got.Verdict)
	}
	paths = append(paths, savePNG(t, dir, "refused.png", png))

	// A file dropped on the page, then another signer's key pasted: the
	// record is checked again and refused as the command refuses it.
	got = b.drop(t, rec)
	if got.OK != "true" || got.Code != "" || got.Rows != int(*verify(t, rec).StepCount) {
		t.Errorf("dropped record: the page shows %+v", got)
	}
	other, err := os.ReadFile("../testdata/keys/other.key.pub")
	if err != nil {
		t.Fatal(err)
	}
	got = b.typeKeys(t, string(other)+string(other))
	want = verify(t, rec, "../testdata/keys/other.key.pub")
	if want.code() != "SIGNER_NOT_TRUSTED" || got.Code != want.code() || got.Timeline || !strings.Contains(got.Verdict, *want.KeyID) {
		t.Errorf("pinned to another key: the page shows %+v; logbook-verify says %v", got, want)
	}
	got = b.typeKeys(t, "not a key")
	if got.OK != "false" || got.Code != "" || !strings.Contains(got.Verdict, "no PEM block") {
		t.Errorf("a pasted key that is not PEM: the page shows %+v", got)
	}
	b.checkQuiet(t)
	report(t, "browser screenshots: "+strings.Join(paths, ", "))
}

func savePNG(t *testing.T, dir, name string, png []byte) string {
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("%s: not a PNG", name)
	}
	p := filepath.Join(dir, name)
	writeFile(t, p, png)
	t.Logf("screenshot: %s", p)
	return p
}

// withoutEd25519 are scripts that run before the page's own and take
// Ed25519 away, as a browser without it would be: WebCrypto that refuses
// the algorithm, and no WebCrypto at all (a page served over plain http).
var withoutEd25519 = map[string]string{
	"refused": `(() => {
		const real = crypto.subtle.importKey.bind(crypto.subtle);
		crypto.subtle.importKey = (fmt, key, alg, ...rest) =>
			(alg && (alg === 'Ed25519' || alg.name === 'Ed25519'))
				? Promise.reject(new DOMException('Algorithm: Unrecognized name', 'NotSupportedError'))
				: real(fmt, key, alg, ...rest);
	})()`,
	"absent": `Object.defineProperty(window, 'crypto', {value: undefined, configurable: true})`,
}

// TestBrowserNoEd25519: where the browser has no Ed25519, no record is
// accepted: a record whose verdict needs the signature gets NO_ED25519,
// and every other verdict is the one logbook-verify gives.
func TestBrowserNoEd25519(t *testing.T) {
	t.Parallel()
	fixtures, _ := filepath.Glob("../testdata/records/*.json")
	pubPath := "../testdata/keys/fixture.key.pub"
	pub, err := os.ReadFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, script := range withoutEd25519 {
		t.Run(name, func(t *testing.T) {
			b := newBrowser(t, script)
			noVerdict := 0
			for _, f := range fixtures {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				got, err := b.verify(data, []string{string(pub)})
				if err != nil {
					t.Fatal(err)
				}
				want := verify(t, f, pubPath)
				switch {
				case got.OK || got.RecordID != nil:
					t.Errorf("%s: accepted without Ed25519: %v", f, got)
				case got.code() == "NO_ED25519":
					noVerdict++
					if want.code() == "NOT_JSON" || want.code() == "SHAPE" || strings.Contains(want.code(), "STEP") || want.code() == "CHAIN_BROKEN" || want.code() == "TIP_MISMATCH" {
						t.Errorf("%s: NO_ED25519, but logbook-verify reached %s before the signature", f, want.code())
					}
				case got.code() != want.code():
					t.Errorf("%s: without Ed25519 the page says %v; logbook-verify says %v", f, got, want)
				}
				if strings.HasPrefix(filepath.Base(f), "good_") && got.code() != "NO_ED25519" {
					t.Errorf("%s: %v, want NO_ED25519", f, got)
				}
			}
			if noVerdict == 0 {
				t.Error("no fixture got NO_ED25519")
			}
			got, png := b.pick(t, "../testdata/records/good_basic.json", "")
			if got.Code != "NO_ED25519" || got.OK != "false" || got.Timeline || !strings.Contains(got.Support, "no Ed25519") {
				t.Errorf("the page shows %+v", got)
			}
			if name == "refused" {
				savePNG(t, screenshotDir(t), "no-ed25519.png", png)
			}
			b.checkQuiet(t)
		})
	}
}
