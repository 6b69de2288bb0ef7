package e2e

import (
	"crypto/ed25519"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/logbook-project/logbook/internal/keys"
)

// TestConsoleRunSplit: a sealed record of 15,000 steps (4 MB) on the
// console's run page, checked in parts by the page's Web Workers
// (js/split.js: the worker's answers, its review fields in batches of
// JSON text), then, in the same page, checked again whole and in parts
// by the same workers: the two give the same verdict, field for field,
// and the same steps and review fields. The record changed in one
// step's summary, the same: both refuse it with the same code and
// detail (the parts fail, and the record is checked whole).
func TestConsoleRunSplit(t *testing.T) {
	t.Parallel()
	const n = 15000
	const sid = "console-split-run"
	f, br, rec := splitFixture(t, sid, n)
	compare := splitCompare(sid)
	br.run(t, chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))

	if ok, parts := get(t, br, chromedp.Evaluate[string](`document.getElementById('verdict').dataset.ok`)), get(t, br, chromedp.Evaluate[int](`Number(document.getElementById('verdict').dataset.split)`)); ok != "true" || parts < 2 {
		t.Fatalf("the page's verdict on the %d-step record: ok %s, in %d parts (want ok, 2 or more)", n, ok, parts)
	}
	if got := get(t, br, chromedp.Evaluate[string](compare, chromedp.EvalAwaitPromise)); !strings.HasPrefix(got, "same ") || strings.HasPrefix(got, "same 0 ") || !strings.HasSuffix(got, " true ") {
		t.Errorf("the record checked whole and by the workers: %q, want the same, in parts, accepted", got)
	}
	if n := get(t, br, chromedp.Evaluate[int](`document.querySelectorAll('#review .call').length`)); n == 0 {
		t.Error("the page drew no call of the record's review")
	}

	// One step's summary changed on the server's disk.
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(data[len(data)/2:]), `"summary":"`) + len(data)/2 + len(`"summary":"`)
	data[at] ^= 1
	writeFile(t, rec, data)
	br.run(t, chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))
	if code := get(t, br, chromedp.Evaluate[string](`document.getElementById('verdict').dataset.code`)); code != "CHAIN_BROKEN" {
		t.Errorf("a step changed on the disk: the page says %q, want CHAIN_BROKEN", code)
	}
	if got := get(t, br, chromedp.Evaluate[string](compare, chromedp.EvalAwaitPromise)); got != "same 0 false CHAIN_BROKEN" {
		t.Errorf("the changed record checked whole and by the workers: %q, want the same refusal", got)
	}
}

// splitFixture: a console whose session sid has a sealed record of n
// steps, and a browser signed in to it; rec is the record's file.
func splitFixture(t *testing.T, sid string, n int) (*consoleFixture, *consoleBrowser, string) {
	t.Helper()
	f := newConsoleFixture(t)
	body := `{"session_id":"` + sid + `","hook_event_name":"SessionStart","cwd":"/work","source":"startup"}`
	req, _ := http.NewRequest("POST", f.url+"/v1/hooks/claude-code", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.op.Token(t, "dev1"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("SessionStart: %v %v", resp, err)
	}
	dir := t.TempDir()
	prefill(t, dir, n)
	key := filepath.Join(dir, "server.key")
	priv, _, err := keys.MarshalPair(consoleServerKey, consoleServerKey.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, key, priv)
	rec := filepath.Join(f.dir, sid+".record.json")
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--dir", dir, "--session", "bench", "--key", key, "--out", rec).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	br := newConsoleBrowser(t)
	br.signIn(t, f, "dev1")
	return f, br, rec
}

// splitCompare is a script that checks sid's record in the page twice,
// whole and by the page's pool (logbook.pool), and says whether the
// two agree, in how many parts the second was, and its verdict.
func splitCompare(sid string) string {
	return `(async () => {
		const b = new Uint8Array(await (await fetch('/ui/record/` + sid + `')).arrayBuffer());
		const o = {pubkeys: [document.getElementById('pubkeys').value]};
		const f = (v) => JSON.stringify([v.ok, v.code, v.detail, v.recordId, v.keyId, v.stepCount, v.level, v.checkpoints, v.picked || null, v.steps ? Array.from(v.steps) : null]);
		const whole = await logbook.check(b, o, 'lazy', logbook.review.stepOf);
		const parts = await logbook.check(b, o, 'lazy', logbook.review.stepOf, logbook.pool);
		return (f(whole) === f(parts) ? 'same' : 'differ') + ' ' + (parts.split || 0) + ' ' + parts.ok + ' ' + (parts.code || '');
	})()`
}

// workerFault stands in for the page's Worker (injected before the
// page's scripts, by the test only: nothing of it is in the page): the
// real worker, but the first made misbehaves as localStorage's
// workerFault says. hang: it never answers; die: it is ended on its
// first part, with no error event (as a worker the browser kills);
// throw: an error event instead of an answer; messageerror: an answer
// that cannot be read; garbage: an answer of the wrong shape; hang-all:
// no worker answers.
const workerFault = `(() => {
	const Real = globalThis.Worker;
	if (!Real) return;
	let made = 0;
	globalThis.Worker = class {
		constructor(url) {
			const mode = localStorage.getItem('workerFault') || '';
			this.mode = made++ === 0 || mode === 'hang-all' ? mode : '';
			this.w = new Real(url);
			this.onmessage = this.onerror = this.onmessageerror = null;
			this.w.onmessage = (e) => {
				if (this.mode === 'hang' || this.mode === 'hang-all') return;
				if (this.mode === 'garbage') e = { data: { id: e.data.id, r: { ok: true, base: 'x', n: 1 } } };
				if (this.onmessage) this.onmessage(e);
			};
			this.w.onerror = (e) => this.onerror && this.onerror(e);
		}
		postMessage(m, t) {
			if (this.mode === 'die') { this.w.terminate(); return; }
			if (this.mode === 'throw') { this.w.terminate(); setTimeout(() => this.onerror(new ErrorEvent('error', { message: 'injected' }))); return; }
			if (this.mode === 'messageerror') { setTimeout(() => this.onmessageerror(new MessageEvent('messageerror'))); return; }
			this.w.postMessage(m, t);
		}
		terminate() { this.w.terminate(); }
	};
})()`

// TestConsoleRunWorkerFault: the run page's workers failing every way
// split.js must not wait on (one that never answers, dies with no error
// event, throws, answers what cannot be read or is not an answer; all
// of them never answering): the page gives the verdict of the check
// whole, says quietly that its thread read a worker's parts, and its
// check in parts after (the workers given up) agrees with the whole.
func TestConsoleRunWorkerFault(t *testing.T) {
	t.Parallel()
	const sid = "console-worker-fault"
	f, br, _ := splitFixture(t, sid, 8000)
	if _, err := chromedp.Call(br.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: workerFault}); err != nil {
		t.Fatal(err)
	}
	compare := splitCompare(sid)
	for _, mode := range []string{"hang", "die", "throw", "messageerror", "garbage", "hang-all"} {
		br.run(t, chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.Evaluate[chromedp.Void](`localStorage.setItem('workerFault', '`+mode+`')`),
			chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))
		got := get(t, br, chromedp.Evaluate[string](`(() => { const d = document.getElementById('verdict').dataset; return [d.ok, d.split, d.fallback, document.querySelector('#verdict dd.note') ? 'noted' : 'silent'].join(' '); })()`))
		if got != "true 12 true noted" {
			t.Errorf("%s: the page's verdict (ok, parts, fell back, noted): %q, want \"true 12 true noted\"", mode, got)
		}
		if got := get(t, br, chromedp.Evaluate[string](compare, chromedp.EvalAwaitPromise)); got != "same 12 true " {
			t.Errorf("%s: the record checked whole and in parts after: %q, want \"same 12 true \"", mode, got)
		}
	}
}
