// The console's run page (internal/console): fetch the session's record
// from this origin and check it with the checker of js/app.js, against
// the keys the page was given. The server's word is not taken: a record
// changed on its disk is shown refused, with its code.
'use strict';
// The checker's workers (js/split.js) start while the record downloads:
// a long record's steps are checked in parts at once, one part on this
// thread and one in each worker, a worker for each core but this one.
try {
  const n = Math.min(3, Math.max(1, (navigator.hardwareConcurrency || 2) - 1));
  globalThis.logbook.pool = new globalThis.logbook.split.Workers('/js/split.js', n);
} catch {
  // No worker here: the record is checked whole, on this thread.
}
document.addEventListener('DOMContentLoaded', async () => {
  const id = document.getElementById('run').dataset.session;
  const status = document.getElementById('fetch');
  let r;
  try {
    r = await fetch('/ui/record/' + encodeURIComponent(id), { credentials: 'same-origin' });
  } catch (e) {
    status.textContent = 'The record could not be fetched: ' + e;
    document.body.dataset.state = 'fetch-failed';
    return;
  }
  if (!r.ok) {
    status.textContent = 'The record could not be fetched (' + r.status + '): ' + (await r.text());
    document.body.dataset.state = 'fetch-failed';
    return;
  }
  const bytes = await download(r);
  performance.mark('logbook-fetched');
  await globalThis.logbook.show(id + '.record.json', bytes);
  // Where the index (the server's word) and this browser's check
  // disagree, say so plainly.
  const run = document.getElementById('run').dataset;
  const box = document.getElementById('verdict').dataset;
  const say = document.getElementById('disagree');
  if (run.indexVerdict === 'sealed' && box.ok !== 'true') {
    say.textContent = 'The server\'s index lists this session as sealed, but this browser refuses its record: ' + (box.code || 'not checked') + '. Do not trust the server\'s copy.';
    say.hidden = false;
    document.body.dataset.disagree = 'true';
  }
});

// download reads the record's bytes as they arrive. A long one's first
// parts go to the workers as soon as their bytes have come (split.js
// head), where the server said its length; the check takes them up.
async function download(r) {
  const lb = globalThis.logbook, pool = lb.pool;
  const total = Number(r.headers.get('Content-Length'));
  if (!pool || !r.body || !Number.isSafeInteger(total) || total < pool.minBytes) return new Uint8Array(await r.arrayBuffer());
  const bytes = new Uint8Array(total);
  const h = lb.split.head(pool, bytes, lb.SHARES);
  const more = [];
  let have = 0;
  const reader = r.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (more.length || have + value.length > total) { more.push(value); continue; } // longer than said: read whole
    bytes.set(value, have);
    have += value.length;
    try { h.feed(have); } catch { h.stopped = true; }
  }
  if (have === total && !more.length) {
    pool.head = h.stopped ? null : h;
    return bytes;
  }
  h.stopped = true;
  const out = new Uint8Array(have + more.reduce((a, v) => a + v.length, 0));
  out.set(bytes.subarray(0, have));
  for (let at = have, i = 0; i < more.length; at += more[i++].length) out.set(more[i], at);
  return out;
}
