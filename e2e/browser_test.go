package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's Chromium (package chromium). A missing
// browser fails the test, never skips it: the in-browser checker would go
// untested. scripts/test.sh and .ci/run install it.
func chromiumPath(tb testing.TB) string {
	if p := os.Getenv("LOGBOOK_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			tb.Fatalf("LOGBOOK_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	tb.Fatal("headless Chromium not found: the in-browser checker (web/) is tested in it. " +
		"Install Debian's package (apt-get install -y chromium; scripts/test.sh does this), " +
		"or set LOGBOOK_CHROMIUM to a Chromium binary.")
	return ""
}

// pageURL is the file:// address of the checker page.
func pageURL(tb testing.TB) string {
	abs, err := filepath.Abs("../web/index.html")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		tb.Fatal(err)
	}
	return "file://" + abs
}

// browser is one headless Chromium with the checker page loaded from a
// local file. It records every request the page makes that is not for
// one of its own files, and every script error.
type browser struct {
	ctx    context.Context
	cancel func()

	mu       sync.Mutex
	requests []string // URLs other than file://
	errors   []string // uncaught exceptions and console errors
}

// newBrowser starts Chromium and loads the page. initScript, when not
// empty, runs in the page before any of the page's own scripts.
func newBrowser(tb testing.TB, initScript ...string) *browser {
	if testing.Short() {
		tb.Skip("browser: not under -short (the quick run .ci/run makes in a clone with nothing beside it)")
	}
	exe := chromiumPath(tb)
	// With no user-data-dir given, chromedp makes a fresh one for each
	// browser and removes it after, retrying while Chromium's helper
	// processes still write to it (a test's own TempDir would fail its
	// cleanup then).
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b := &browser{ctx: ctx, cancel: func() { cancel(); acancel() }}
	tb.Cleanup(b.cancel)
	// The first call starts the browser; it takes no timeout, which would
	// end the browser with it.
	if err := chromedp.Listen(ctx, b.listen); err != nil {
		tb.Fatalf("starting %s: %v", exe, err)
	}
	start, done := context.WithTimeout(ctx, 60*time.Second)
	defer done()
	err := chromedp.Do(start,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			for _, s := range initScript {
				if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: s}); err != nil {
					return err
				}
			}
			return nil
		}),
	)
	if err != nil {
		tb.Fatalf("starting %s: %v", exe, err)
	}
	b.load(tb)
	return b
}

// load (re)loads the checker page and waits until it is ready.
func (b *browser) load(tb testing.TB) {
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	err := chromedp.Do(ctx,
		chromedp.Navigate(pageURL(tb)),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="ready"]`)),
	)
	if err != nil {
		tb.Fatalf("loading the checker page: %v", err)
	}
}

func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if !strings.HasPrefix(e.Request.URL, "file://") {
			b.requests = append(b.requests, e.Request.URL)
		}
	case *runtime.EventExceptionThrown:
		b.errors = append(b.errors, (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value))
			}
			b.errors = append(b.errors, "console.error: "+strings.Join(parts, " "))
		}
	}
}

// checkQuiet fails the test if the page made a network request or threw.
func (b *browser) checkQuiet(tb testing.TB) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) > 0 {
		tb.Errorf("the page made %d network request(s): %v", len(b.requests), b.requests)
	}
	if len(b.errors) > 0 {
		tb.Errorf("the page reported %d error(s): %v", len(b.errors), b.errors)
	}
}

// evalJS runs a JavaScript expression in the page, awaits it when it is a
// promise, and decodes its value.
func evalJS[T any](b *browser, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 120*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// bytesExpr is a JavaScript expression for a Uint8Array holding data.
func bytesExpr(data []byte) string {
	return `(() => { const s = atob("` + base64.StdEncoding.EncodeToString(data) + `"); ` +
		`const u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return u; })()`
}

// verify runs window.logbookVerify on data with the given SPKI PEM texts.
func (b *browser) verify(data []byte, pubkeyPEMs []string) (verdict, error) {
	keys, _ := json.Marshal(pubkeyPEMs)
	if pubkeyPEMs == nil {
		keys = []byte("undefined")
	}
	return evalJS[verdict](b, `logbookVerify(`+bytesExpr(data)+`, {pubkeys: `+string(keys)+`})`)
}

// splitCheck is the page's check of data in parts (js/split.js, on
// the page's own thread: a file:// page starts no worker) against its
// check whole: whether the two agree on the verdict, every field of it,
// and on the steps and the review's fields they keep, and how many parts
// the split check used (0: it fell back to the check whole).
type splitCheck struct {
	Same  bool `json:"same"`
	Split int  `json:"split"`
	OK    bool `json:"ok"`
	Steps int  `json:"steps"`
}

func (b *browser) verifySplit(data []byte, pubkeyPEMs []string) (splitCheck, error) {
	keys, _ := json.Marshal(pubkeyPEMs)
	if pubkeyPEMs == nil {
		keys = []byte("undefined")
	}
	return evalJS[splitCheck](b, `(async () => { const b = `+bytesExpr(data)+`, o = {pubkeys: `+string(keys)+`}; `+
		`const f = (v) => JSON.stringify([v.ok, v.code, v.detail, v.recordId, v.keyId, v.stepCount, v.level, v.checkpoints, v.picked || null, v.steps ? Array.from(v.steps) : null]); `+
		`const whole = await logbook.check(b, o, 'lazy', logbook.review.stepOf); `+
		`const parts = await logbook.check(b, o, 'lazy', logbook.review.stepOf, logbook.split.inProcess(2)); `+
		`return { same: f(whole) === f(parts), split: parts.split || 0, ok: parts.ok, steps: parts.stepCount || 0 }; })()`)
}

// same reports whether two verdicts agree on every field but detail.
func same(a, b verdict) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.OK == b.OK && eq(a.Code, b.Code) && eq(a.RecordID, b.RecordID) && eq(a.KeyID, b.KeyID) &&
		(a.StepCount == nil) == (b.StepCount == nil) && (a.StepCount == nil || *a.StepCount == *b.StepCount)
}

func (v verdict) String() string {
	s := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	n := "null"
	if v.StepCount != nil {
		n = fmt.Sprint(*v.StepCount)
	}
	return fmt.Sprintf("ok=%v code=%s recordId=%s keyId=%s stepCount=%s (%s)", v.OK, s(v.Code), s(v.RecordID), s(v.KeyID), n, v.Detail)
}
