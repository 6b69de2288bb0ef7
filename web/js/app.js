// The page: pick or drop a record, paste pinned keys, read the verdict and,
// for an accepted record, its session header and a timeline of its steps.
// Everything a record says is shown as text (textContent), never as markup.
(function (lb) {
  'use strict';
  const { K, get } = lb.json;
  const $ = (id) => document.getElementById(id);

  let current = null; // {name, bytes} of the file on show
  let run = 0; // so that a slow check never overwrites a newer one

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.append(visible(String(text)));
    return e;
  }

  // Characters that hide or reorder text on screen (controls, bidi
  // overrides and isolates, zero-width marks, line and paragraph
  // separators) are shown as their code point, so a summary cannot pass
  // for something it is not.
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

  function visible(s) {
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of s.matchAll(HIDDEN)) {
      if (m.index > last) frag.append(s.slice(last, m.index));
      const cp = m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
      const mark = document.createElement('span');
      mark.className = 'hidden-char';
      mark.title = 'U+' + cp;
      mark.textContent = '\u27e6U+' + cp + '\u27e7';
      frag.append(mark);
      last = m.index + m[0].length;
    }
    if (last < s.length) frag.append(s.slice(last));
    return frag;
  }

  // pretty writes a node as indented JSON text (keys in file order).
  function pretty(v, indent = '') {
    if (typeof v === 'string') return JSON.stringify(v);
    switch (v.t) {
      case K.NUL: return 'null';
      case K.TRUE: return 'true';
      case K.FALSE: return 'false';
      case K.NUM: return String(Number(v.lit));
      
      case K.ARR:
        if (!v.items.length) return '[]';
        return '[\n' + v.items.map((x) => indent + '  ' + pretty(x, indent + '  ')).join(',\n') + '\n' + indent + ']';
      case K.OBJ:
        if (!v.keys.length) return '{}';
        return '{\n' + v.keys.map((k, i) => indent + '  ' + JSON.stringify(k) + ': ' + pretty(v.vals[i], indent + '  ')).join(',\n') + '\n' + indent + '}';
    }
    return '';
  }

  // members shows an object's members one a line: a string as its text,
  // anything else as JSON.
  function members(obj) {
    const dl = el('dl', 'kv');
    obj.keys.forEach((k, i) => {
      const v = obj.vals[i];
      dl.append(el('dt', null, k === '' ? '""' : k));
      if (typeof v === 'string') dl.append(el('dd', 'str', v));
      else dl.append(el('dd', 'json', pretty(v)));
    });
    return dl;
  }

  function row(dl, term, value, cls) {
    dl.append(el('dt', null, term));
    const dd = el('dd', cls, value);
    dl.append(dd);
    return dd;
  }

  async function show(name, bytes) {
    current = { name, bytes };
    if (lb.cassette && lb.cassette.detect(bytes)) { // a runback cassette: cassette.js
      ++run;
      $('review').hidden = true; // a record's review, if one was on show
      return lb.cassette.show(name, bytes, splitKeys($('pubkeys').value), $('hmackey').value);
    }
    const mine = ++run;
    const keys = splitPEM($('pubkeys').value);
    document.body.dataset.state = 'checking';
    const started = performance.now();
    // A bundle is opened as its record (js/bundle.js); its own signer
    // key is never pinned for being there.
    const bun = lb.bundle.detect(bytes) ? lb.bundle.read(bytes) : null;
    let v;
    if (bun && !keys.length) {
      // No key pasted: a bundle carries its own signerKey, and under it a
      // bundle anyone re-signed would pass. As logbook-verify --bundle
      // will not judge a bundle without --trust, nor does the page.
      v = lb.bundle.needsTrust();
    } else if (bun && bun.error) {
      v = { ok: false, code: 'BUNDLE_INVALID', detail: bun.error, recordId: null, checkpoints: [] };
    } else {
      const opts = checkOptions(keys);
      if (bun && !opts.checkpoints && opts.checkpointKeys.length && bun.checkpoints.length) opts.checkpoints = bun.checkpoints;
      // lb.pool: the console's workers (run.js, split.js), if any.
      v = await lb.check(bun ? bun.record : bytes, opts, 'lazy', lb.review.stepOf, lb.pool || null);
      if (bun && v.recordId && lb.bundle.keyMismatch(bun, v.publicKey)) {
        v = { ok: false, code: 'BUNDLE_KEY_MISMATCH', detail: 'the bundle\'s signerKey is not the key that signed its record', recordId: null, checkpoints: [] };
      }
    }
    const ms = performance.now() - started;
    if (mine !== run) return;
    renderVerdict(name, bytes, v, keys.length > 0, ms, bun);
    performance.mark('logbook-verdict');
    // The verdict is what the reader waits for: it is painted before the
    // session, the review and the timeline are drawn (a long record's
    // review takes a while to build), and the page says 'verified' until
    // they are. The check itself is done and whole by then.
    if (v.ok) {
      document.body.dataset.state = 'verified';
      await nextTask();
      if (mine !== run) return;
    }
    // The review takes what it needs from the steps as the check reads
    // them (v.picked), and serves the session's header too: a long
    // record's steps are read once, by the check.
    const r = v.ok ? lb.review.build(v.steps, v.picked) : null;
    renderSession(v, r);
    renderReview(v, r);
    renderTimeline(v);
    performance.mark('logbook-drawn');
    document.body.dataset.state = 'done';
  }

  // nextTask resolves in a later task, once the browser has had the
  // chance to paint what is on the page (a timer, not an animation
  // frame: a hidden tab gets none, and its page must still be drawn).
  function nextTask() {
    return new Promise((resolve) => setTimeout(resolve, 0));
  }

  // checkOptions adds the checkpoint fields (checkpoint.js) to the pinned
  // keys: one signed note, and the server keys as verifier-key lines or
  // PEM blocks.
  function checkOptions(keys) {
    const note = $('checkpoint').value.replace(/\r\n/g, '\n');
    const text = $('checkpointkeys').value;
    const cpKeys = splitPEM(text.replace(/^\s*[^\s+]+\+[0-9a-f]{8}\+\S+\s*$/gm, ''))
      .concat(text.match(/^\s*[^\s+]+\+[0-9a-f]{8}\+\S+\s*$/gm) || []);
    if (!note.trim()) return { pubkeys: keys, checkpointKeys: cpKeys.filter((k) => k.trim()) };
    return { pubkeys: keys, checkpoints: [note.trim() + '\n'], checkpointKeys: cpKeys.filter((k) => k.trim()) };
  }

  // splitPEM cuts the key field into its PEM blocks (several keys may be
  // pinned at once).
  function splitPEM(text) {
    const blocks = text.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) || [];
    if (!blocks.length && text.trim()) return [text]; // let the reader say what is wrong
    return blocks;
  }

  // splitKeys cuts the key field for a cassette: its PEM blocks and its
  // JSON keys (a JWK or a Node key object, as logbook-verify --pubkey
  // reads them for a cassette), in the order given.
  function splitKeys(text) {
    const out = [];
    const re = /-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g;
    let m, last = 0;
    const json = (part) => {
      let depth = 0, start = -1, inStr = false, esc = false;
      for (let i = 0; i < part.length; i++) {
        const c = part[i];
        if (inStr) {
          if (esc) esc = false;
          else if (c === '\\') esc = true;
          else if (c === '"') inStr = false;
          continue;
        }
        if (c === '"' && depth > 0) inStr = true;
        else if (c === '{') { if (depth++ === 0) start = i; }
        else if (c === '}' && depth > 0 && --depth === 0) out.push(part.slice(start, i + 1));
      }
    };
    while ((m = re.exec(text))) {
      json(text.slice(last, m.index));
      out.push(m[0]);
      last = m.index + m[0].length;
    }
    json(text.slice(last));
    if (!out.length && text.trim()) return [text]; // let the reader say what is wrong
    return out;
  }

  function renderVerdict(name, bytes, v, pinnedAny, ms, bun) {
    const box = $('verdict');
    box.hidden = false;
    box.replaceChildren();
    const state = v.ok ? 'accepted' : v.code === 'NO_ED25519' ? 'no-verdict' : v.code ? 'refused' : 'error';
    box.className = state;
    box.dataset.ok = String(v.ok);
    box.dataset.code = v.code || '';
    box.dataset.split = String(v.split || 0); // the parts its steps were checked in (split.js)
    box.dataset.fallback = v.fallback ? 'true' : 'false'; // a worker failed, and this thread read its parts
    const head = el('h2', 'status');
    head.append(el('span', 'word', { accepted: 'Accepted', refused: 'Refused', 'no-verdict': 'No verdict', error: 'Not checked' }[state]));
    if (v.code) head.append(el('code', 'code', v.code));
    box.append(head);
    if (v.code && lb.CODES[v.code]) box.append(el('p', 'meaning', lb.CODES[v.code]));
    if (v.ok) {
      box.append(el('p', 'meaning', pinnedAny
        ? 'The record is unchanged since it was signed, and it was signed by a pinned key.'
        : 'The record is unchanged since it was signed. No key is pinned, so this says nothing about who signed it: paste the signer\'s public key to check that.'));
    }
    const dl = el('dl');
    row(dl, 'file', name + ' (' + bytes.length.toLocaleString('en') + ' bytes)');
    if (bun && !bun.error) {
      const c = bun.counts;
      row(dl, 'bundle', 'its record is checked here; its signer key is not trusted for being in the bundle (paste the key you trust above). '
        + c.checkpoints + ' checkpoint(s)' + (c.checkpoints ? (v.checkpoints && v.checkpoints.length ? ', checked under the key given' : ', checked only under a checkpoint key given above') : '')
        + '; ' + c.attestations + ' attestation(s) and ' + c.logProofs + ' proof(s) of logging, checked by logbook-verify --bundle');
    }
    row(dl, 'detail', v.detail, 'detail');
    // Quiet: the verdict is the same, only slower.
    if (v.fallback) row(dl, 'checked', v.fallback, 'note');
    if (v.recordId) {
      row(dl, 'recordId', v.recordId, 'hex');
      row(dl, 'keyId', v.keyId, 'hex');
      row(dl, 'steps', v.stepCount.toLocaleString('en'));
      row(dl, 'signer', v.pinned ? 'pinned (one of the keys above)' : pinnedAny ? 'not one of the pinned keys' : 'not pinned: integrity only');
      if (v.ok) {
        row(dl, 'level', v.level === 'server'
          ? 'server: every step was checkpointed by the pinned server key (' + v.checkpoints.map((c) => c.origin + ', ' + c.size + ' steps at ' + c.time).join('; ') + ')'
          : 'local: sealed from a file the agent could write' + (v.checkpoints.length ? ' (the checkpoint agrees, but counts fewer steps than the record holds)' : ''));
      }
    }
    row(dl, 'checked in', ms < 1000 ? ms.toFixed(0) + ' ms' : (ms / 1000).toFixed(2) + ' s');
    box.append(dl);
  }

  function renderSession(v, review) {
    const box = $('session');
    box.hidden = !v.ok;
    if (!v.ok) return;
    box.replaceChildren(el('h2', null, 'Session'));
    const rec = v.record, s = get(rec, 'session');
    const dl = el('dl');
    for (const k of ['id', 'agent', 'goal', 'cwd', 'startedAt', 'endedAt']) {
      const val = get(s, k);
      row(dl, k, val === '' ? '(empty)' : val, val === '' ? 'empty' : null);
    }
    const r = get(s, 'recorder');
    if (r) row(dl, 'recorder', get(r, 'name') + ' ' + get(r, 'version') + ' (sha256 ' + get(r, 'sha256') + ')');
    const id = get(rec, 'signerIdentity');
    if (id) row(dl, 'signer identity', get(id, 'certificates').items.length + ' certificate(s), not checked here');
    if (get(get(rec, 'signature'), 'rfc3161')) row(dl, 'timestamp token', 'present (RFC 3161), not checked here');
    // Who sent the events, as a fleet's server wrote it (docs/fleet.md).
    const attested = new Set(), claimed = new Set();
    for (const st of review.steps) {
      const a = st.actorOf;
      if (!a || typeof a === 'string') continue;
      attested.add(a.by === 'token' ? "the server's shared token" : a.subject + ' in ' + a.tenant + ' (' + a.by + ')');
      if (a.claimed) claimed.add(a.claimed);
    }
    if (attested.size) row(dl, 'actor (attested)', [...attested].join(', '));
    if (claimed.size) row(dl, 'claimed (asserted)', [...claimed].join(', ') + ': the client said so, nothing checked it');
    box.append(dl);
  }

  // renderReview shows the joined calls, turns, sub-agents and gaps
  // (js/review.js).
  function renderReview(v, r) {
    const box = $('review');
    box.hidden = !v.ok;
    if (v.ok) lb.review.render(v, box, el, r);
  }

  // The timeline shows PAGE steps at a time, with buttons to page: a long
  // record is not one very long page.
  const PAGE = 50;

  function renderTimeline(v) {
    const box = $('timeline');
    box.hidden = !v.ok;
    if (!v.ok) return;
    const steps = v.steps;
    box.replaceChildren(el('h2', null, 'All steps, one per hook event (' + steps.length.toLocaleString('en') + ')'));
    if (!steps.length) { box.append(el('p', 'empty', 'The record has no steps.')); return; }
    const table = el('table');
    const head = el('tr');
    for (const h of ['#', 'time', 'kind', 'summary', 'data', 'digests']) head.append(el('th', null, h));
    table.append(el('thead'));
    table.tHead.append(head);
    const body = el('tbody');
    table.append(body);
    box.append(table);
    const start = Date.parse(get(steps.at(0), 'at'));
    const pages = Math.ceil(steps.length / PAGE);
    const nav = el('div', 'pager');
    const prev = el('button', 'prev', '← previous');
    const next = el('button', 'next', 'next →');
    const where = el('span', 'where');
    prev.type = next.type = 'button';
    nav.append(prev, where, next);
    let page = 0;
    const draw = () => {
      const frag = document.createDocumentFragment();
      const from = page * PAGE, to = Math.min(steps.length, from + PAGE);
      const day = { last: '' }; // the date is shown where it changes
      for (let i = from; i < to; i++) frag.append(stepRow(steps.at(i), start, day));
      body.replaceChildren(frag);
      where.textContent = 'steps ' + from.toLocaleString('en') + '–' + (to - 1).toLocaleString('en') + ' of ' + steps.length.toLocaleString('en') + ' (page ' + (page + 1) + ' of ' + pages + ')';
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
      box.dataset.page = String(page);
    };
    prev.addEventListener('click', () => { if (page > 0) { page--; draw(); } });
    next.addEventListener('click', () => { if (page < pages - 1) { page++; draw(); } });
    nav.hidden = pages <= 1;
    box.insertBefore(nav, table);
    draw();
  }

  function stepRow(st, start, day) {
    const tr = el('tr');
    const kind = get(st, 'kind');
    tr.className = 'kind-' + kind;
    tr.append(el('td', 'seq', get(st, 'seq').lit));
    const at = get(st, 'at');
    const time = el('td', 'time');
    const date = at.slice(0, 10);
    if (date !== day.last) time.append(el('span', 'date', date));
    day.last = date;
    // Nanosecond instants would overrun the column: the time of day is
    // shown to the millisecond, the whole instant on hover.
    time.append(el('span', 'at', at.slice(11, -1).replace(/(\.\d{3})\d+$/, '$1')), el('span', 'since', '+' + since(Date.parse(at) - start)));
    time.title = at;
    tr.append(time);
    tr.append(el('td', 'kind'));
    tr.lastChild.append(el('span', 'badge', kind));
    tr.append(el('td', 'summary', get(st, 'summary')));
    const data = el('td', 'data');
    const d = get(st, 'data');
    if (d.keys.length) data.append(members(d));
    const dossier = get(st, 'dossier');
    if (dossier.t === K.OBJ) {
      data.append(el('div', 'label', 'dossier'));
      data.append(members(dossier));
    }
    tr.append(data);
    const dig = el('td', 'digests');
    for (const [k, label] of [['inputsSha256', 'in'], ['outputsSha256', 'out']]) {
      for (const h of get(st, k).items) {
        const line = el('div', 'digest', label + ' ' + h.slice(0, 12) + '…');
        line.title = label + 'put body SHA-256 ' + h;
        dig.append(line);
      }
    }
    tr.append(dig);
    return tr;
  }

  function since(ms) {
    if (!isFinite(ms)) return '?';
    if (ms < 0) return '-' + since(-ms);
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    if (ms < 3600000) return Math.floor(ms / 60000) + ' min ' + Math.floor(ms % 60000 / 1000) + ' s';
    return Math.floor(ms / 3600000) + ' h ' + Math.floor(ms % 3600000 / 60000) + ' min';
  }

  async function pick(file) {
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    await show(file.name, bytes);
  }

  function init() {
    const drop = $('drop');
    $('file').addEventListener('change', (e) => pick(e.target.files[0]));
    for (const t of [drop, document.body]) {
      t.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
      t.addEventListener('dragleave', () => drop.classList.remove('over'));
      t.addEventListener('drop', (e) => {
        e.preventDefault();
        e.stopPropagation();
        drop.classList.remove('over');
        pick(e.dataTransfer.files[0]);
      });
    }
    let timer;
    for (const id of ['pubkeys', 'hmackey', 'checkpoint', 'checkpointkeys']) {
      $(id).addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => { if (current) show(current.name, current.bytes); }, 250);
      });
    }
    lb.ed25519.hasEd25519().then((yes) => {
      $('support').textContent = yes
        ? 'This browser has Ed25519 (WebCrypto): records can be checked here.'
        : 'This browser has no Ed25519 in WebCrypto: records cannot be accepted here (verdict NO_ED25519).';
      $('support').className = yes ? 'ok' : 'warn';
    });
    document.body.dataset.state = 'ready';
  }

  lb.show = show; // for tests and tools that hold bytes rather than a file
  document.addEventListener('DOMContentLoaded', init);
})(globalThis.logbook = globalThis.logbook || {});
