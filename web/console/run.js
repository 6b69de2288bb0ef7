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
  // A long record is read as it comes, its first parts checked by the
  // workers meanwhile (js/split.js download).
  const pool = globalThis.logbook.pool, total = Number(r.headers.get('Content-Length'));
  let bytes;
  try {
    bytes = pool && r.body && Number.isSafeInteger(total) && total >= pool.minBytes
      ? await globalThis.logbook.split.download(r.body, total, pool)
      : new Uint8Array(await r.arrayBuffer());
  } catch (e) {
    status.textContent = 'The record could not be fetched: ' + e;
    document.body.dataset.state = 'fetch-failed';
    return;
  }
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
