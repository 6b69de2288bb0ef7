package e2e

import (
	"crypto/ed25519"
	"errors"
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
	f, br, rec, _ := splitFixture(t, sid, n)
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
// steps (dev1's, signed by the server's key), and a browser signed in to
// it; rec is the record's file, pub the server's public key's.
func splitFixture(tb testing.TB, sid string, n int) (f *consoleFixture, br *consoleBrowser, rec, pub string) {
	tb.Helper()
	f = newConsoleFixture(tb)
	// dev1's first event makes the session dev1's (its owner file).
	body := `{"session_id":"` + sid + `","hook_event_name":"SessionStart","cwd":"/work","source":"startup"}`
	req, _ := http.NewRequest("POST", f.url+"/v1/hooks/claude-code", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.op.Token(tb, "dev1"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		tb.Fatalf("SessionStart: %v %v", resp, err)
	}
	dir := tb.TempDir()
	prefill(tb, dir, n)
	key, pub := filepath.Join(dir, "server.key"), filepath.Join(dir, "server.pub")
	privPEM, pubPEM, err := keys.MarshalPair(consoleServerKey, consoleServerKey.Public().(ed25519.PublicKey))
	if err != nil {
		tb.Fatal(err)
	}
	if err := errors.Join(os.WriteFile(key, privPEM, 0o600), os.WriteFile(pub, pubPEM, 0o644)); err != nil {
		tb.Fatal(err)
	}
	rec = filepath.Join(f.dir, sid+".record.json")
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--dir", dir, "--session", "bench", "--key", key, "--out", rec).CombinedOutput(); err != nil {
		tb.Fatalf("%v %s", err, out)
	}
	br = newConsoleBrowser(tb)
	br.signIn(tb, f, "dev1")
	return f, br, rec, pub
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
	f, br, _, _ := splitFixture(t, sid, 8000)
	if _, err := chromedp.Call(br.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: workerFault}); err != nil {
		t.Fatal(err)
	}
	compare := splitCompare(sid)
	for _, mode := range []string{"hang", "die", "throw", "messageerror", "garbage", "hang-all"} {
		br.run(t, chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.Evaluate[chromedp.Void](`localStorage.setItem('workerFault', '`+mode+`')`),
			chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))
		got := get(t, br, chromedp.Evaluate[string](`(() => { const d = document.getElementById('verdict').dataset; return [d.ok, d.split, d.fallback, document.querySelector('#verdict dd.note') ? 'noted' : 'silent'].join(' '); })()`))
		if got != "true 22 true noted" {
			t.Errorf("%s: the page's verdict (ok, parts, fell back, noted): %q, want \"true 22 true noted\"", mode, got)
		}
		if got := get(t, br, chromedp.Evaluate[string](compare, chromedp.EvalAwaitPromise)); got != "same 22 true " {
			t.Errorf("%s: the record checked whole and in parts after: %q, want \"same 22 true \"", mode, got)
		}
	}
}

// TestConsoleRunHead: a long record read as it downloads (js/split.js
// download), its first parts checked meanwhile (Head), in chunks small
// and large: the bytes are the record's, the check takes the parts up
// (none is checked twice) and gives the verdict of the check whole. A
// body shorter or longer than its Content-Length is read whole all the
// same and its parts are not taken up (those sent early are checked
// again: a server that says the wrong length costs time, not the
// verdict). A head whose cuts do not hold on the whole record is not
// taken up (find). The signed bytes are made in place around the steps
// and put back: the bytes are unchanged after the check, and a
// signature changed in one digit is refused.
func TestConsoleRunHead(t *testing.T) {
	t.Parallel()
	const sid = "console-head-run"
	f, br, _, _ := splitFixture(t, sid, 6000)
	br.run(t, chromedp.Navigate(f.url+"/ui/run/"+sid), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))
	got := get(t, br, chromedp.Evaluate[string](`(async () => {
		const b = new Uint8Array(await (await fetch('/ui/record/`+sid+`')).arrayBuffer());
		const o = {pubkeys: [document.getElementById('pubkeys').value]};
		const f = (v) => JSON.stringify([v.ok, v.code, v.detail, v.recordId, v.keyId, v.stepCount, v.level, v.checkpoints, v.picked || null, v.steps ? Array.from(v.steps) : null]);
		const whole = f(await logbook.check(b, o, 'lazy', logbook.review.stepOf));
		const stream = (chunk) => new ReadableStream({ start(c) { for (let i = 0; i < b.length; i += chunk) c.enqueue(b.slice(i, i + chunk)); c.close(); } });
		const key = (t) => new TextDecoder().decode(t.wrapped.subarray(10, 90)) + ' ' + t.wrapped.length;
		const out = [];
		for (const [chunk, total] of [[65536, b.length], [1000003, b.length], [65536, b.length - 10], [65536, b.length + 10]]) {
			const inner = logbook.split.inProcess(2), seen = new Set();
			let twice = 0;
			const pool = { size: 1, minBytes: 0, head: null, run: (t) => { const k = key(t); if (seen.has(k)) twice++; seen.add(k); return inner.run(t); } };
			const got = await logbook.split.download(stream(chunk), total, pool);
			const same = got.length === b.length && got.every((x, i) => x === b[i]);
			const head = pool.head, early = head ? head.runs.length : 0;
			const v = await logbook.check(got, o, 'lazy', logbook.review.stepOf, pool);
			const after = got.length === b.length && got.every((x, i) => x === b[i]); // the signed bytes were made in place, and undone
			out.push([chunk, total - b.length, same, early > 0, total === b.length ? twice : '-', f(v) === whole, v.split || 0, after].join(' '));
		}
		// The signature's value changed in one digit: refused as the
		// whole check refuses it, the signed bytes made in place.
		const bad = b.slice(), at = new TextDecoder().decode(b.subarray(0, 4096)).indexOf('"value":"') + 9;
		bad[at] = bad[at] === 0x30 ? 0x31 : 0x30;
		const badWhole = f(await logbook.check(bad, o, 'lazy', logbook.review.stepOf));
		const badStream = new ReadableStream({ start(c) { c.enqueue(bad.slice()); c.close(); } });
		const pool2 = logbook.split.inProcess(1, 0);
		const badGot = await logbook.split.download(badStream, bad.length, pool2);
		const bv = await logbook.check(badGot, o, 'lazy', logbook.review.stepOf, pool2);
		out.push([bv.code, f(bv) === badWhole, badGot.every((x, i) => x === bad[i])].join(' '));
		const fb = logbook.split.find(b, logbook.split.SHARES);
		const wrong = [
			logbook.split.find(b, logbook.split.SHARES, { open: fb.open + 1, cuts: [] }),
			logbook.split.find(b, logbook.split.SHARES, { open: fb.open, cuts: [fb.cuts[0] + 1] }),
			logbook.split.find(b, logbook.split.SHARES, { open: fb.open, cuts: [fb.cuts[1], fb.cuts[0]] }),
		].map((x) => x === null);
		const good = JSON.stringify(logbook.split.find(b, logbook.split.SHARES, { open: fb.open, cuts: fb.cuts.slice(0, 3) })) === JSON.stringify(fb);
		return out.join('; ') + ' | ' + wrong.join(' ') + ' ' + good;
	})()`, chromedp.EvalAwaitPromise))
	want := "65536 0 true true 0 true 22 true; 1000003 0 true true 0 true 22 true; 65536 -10 true false - true 22 true; 65536 10 true false - true 22 true; SIGNATURE_INVALID true true | true true true true"
	if got != want {
		t.Errorf("the record read as it downloads (chunk, length said less its own, bytes the same, parts sent early, parts checked twice, verdict the whole check's, parts, bytes the same after):\n got %q\nwant %q", got, want)
	}
}
