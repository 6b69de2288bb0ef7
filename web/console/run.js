// The console's run page (internal/console): fetch the session's record
// from this origin and check it with the checker of js/app.js, against
// the keys the page was given. The server's word is not taken: a record
// changed on its disk is shown refused, with its code.
'use strict';
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
  const bytes = new Uint8Array(await r.arrayBuffer());
  await globalThis.logbook.show(id + '.record.json', bytes);
});
