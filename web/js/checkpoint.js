// Signed checkpoints (docs/checkpoint.md): a second implementation, apart
// from internal/checkpoint, of the note format, the checkpoint text and the
// checks of step 9 (CHECKPOINT_INVALID, CHECKPOINT_MISMATCH, TRUNCATED), and
// the assurance level. verify.js calls lb.checkpoints after the policy
// checks; the options come from logbookVerify(bytes, {checkpoints,
// checkpointKeys}).
(function (lb) {
  'use strict';

  const VERSION = 'logbook-checkpoint/v1';
  const MAX_NOTE = 16 << 10;
  const SPKI_PREFIX = '302a300506032b6570032100';
  const enc = new TextEncoder();

  class Invalid extends Error {}

  function validOrigin(s) {
    return s.length > 0 && s.length <= 255 && s[0] !== '{' && /^[!-*,-~]+$/.test(s);
  }
  // A note key name: non-empty, no Unicode space, no '+'.
  function validName(s) {
    return s.length > 0 && !/[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/.test(s);
  }
  const validSession = (s) => /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(s);
  const hex64 = (s) => /^[0-9a-f]{64}$/.test(s);

  function b64(s) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) throw new Invalid('malformed note: bad base64');
    return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  }

  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  }

  // keyHash is the note key hash: the first 4 bytes, big-endian, of
  // SHA-256(name, "\n", 1, the 32 key bytes).
  function keyHash(name, pub) {
    const h = lb.unhex(lb.sha256(concat(enc.encode(name + '\n'), Uint8Array.of(1), pub)));
    return ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;
  }

  const keyId = (pub) => lb.sha256(concat(lb.unhex(SPKI_PREFIX), pub));

  // readKey takes an SPKI PEM text (any origin) or a note verifier key
  // "name+hash+base64(1, key)" (that origin only).
  function readKey(text) {
    text = String(text);
    if (text.includes('-----BEGIN')) return { name: '', pub: lb.readPublicKeyPEM(text) };
    const s = text.trim();
    const i = s.indexOf('+'), j = s.indexOf('+', i + 1);
    if (i < 0 || j < 0) throw new Error('not a note verifier key');
    const name = s.slice(0, i), hash = s.slice(i + 1, j);
    let raw;
    try { raw = b64(s.slice(j + 1)); } catch (e) { throw new Error('not a note verifier key'); }
    if (!validName(name) || !/^[0-9a-f]{8}$/.test(hash) || raw.length !== 33 || raw[0] !== 1) throw new Error('not a note verifier key');
    const pub = raw.slice(1);
    if (keyHash(name, pub) !== parseInt(hash, 16)) throw new Error('not a note verifier key: the hash does not match');
    return { name, pub };
  }

  // parseText reads the eight lines of a checkpoint text.
  function parseText(text) {
    if (!text.endsWith('\n')) throw new Invalid('malformed checkpoint text: no final newline');
    const lines = text.slice(0, -1).split('\n');
    if (lines.length !== 8) throw new Invalid('malformed checkpoint text: ' + lines.length + ' lines, want 8');
    if (lines[1] !== VERSION) throw new Invalid('malformed checkpoint text: second line is not ' + VERSION);
    const c = { origin: lines[0] };
    const names = ['session', 'size', 'tip', 'time', 'redact', 'key'];
    names.forEach((n, k) => {
      const line = lines[2 + k];
      if (!line.startsWith(n + ' ')) throw new Invalid('malformed checkpoint text: line ' + (3 + k) + ' is not ' + n);
      c[n] = line.slice(n.length + 1);
    });
    if (!validOrigin(c.origin)) throw new Invalid('malformed checkpoint text: origin');
    if (!validSession(c.session)) throw new Invalid('malformed checkpoint text: session');
    if (!/^[1-9][0-9]{0,15}$/.test(c.size)) throw new Invalid('malformed checkpoint text: size');
    c.size = Number(c.size);
    for (const n of ['tip', 'redact', 'key']) if (!hex64(c[n])) throw new Invalid('malformed checkpoint text: ' + n);
    if (!lb.shape.isInstant(c.time)) throw new Invalid('malformed checkpoint text: time');
    return c;
  }

  // open verifies a signed note under the pinned keys, as
  // golang.org/x/mod/sumdb/note's Open does, then reads its text.
  async function open(bytes, keys) {
    if (bytes.length > MAX_NOTE) throw new Invalid('over ' + MAX_NOTE + ' bytes');
    let msg;
    try { msg = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch (e) { throw new Invalid('malformed note: not UTF-8'); }
    if (/[\u0000-\u0009\u000b-\u001f]/.test(msg)) throw new Invalid('malformed note: a control character');
    const origin = msg.slice(0, msg.indexOf('\n') < 0 ? msg.length : msg.indexOf('\n'));
    const byHash = new Map();
    for (const k of keys) {
      if (k.name !== '' && k.name !== origin) continue;
      if (lb.ed25519.weakKey(k.pub)) continue;
      if (!validOrigin(origin)) throw new Invalid('malformed checkpoint: origin');
      const h = keyHash(origin, k.pub);
      if (!byHash.has(h)) byHash.set(h, k.pub);
    }
    const split = msg.lastIndexOf('\n\n');
    if (split < 0) throw new Invalid('malformed note');
    const text = msg.slice(0, split + 1);
    let sigs = msg.slice(split + 2);
    if (sigs === '' || !sigs.endsWith('\n')) throw new Invalid('malformed note');
    const textBytes = enc.encode(text);
    const verified = [];
    const seen = new Set();
    let count = 0;
    while (sigs.length > 0) {
      const i = sigs.indexOf('\n');
      let line = sigs.slice(0, i);
      sigs = sigs.slice(i + 1);
      if (!line.startsWith('\u2014 ')) throw new Invalid('malformed note');
      line = line.slice(2);
      const sp = line.indexOf(' ');
      const name = sp < 0 ? line : line.slice(0, sp), b = sp < 0 ? '' : line.slice(sp + 1);
      const sig = b64(b);
      if (!validName(name) || b === '' || sig.length < 5) throw new Invalid('malformed note');
      if (++count > 100) throw new Invalid('malformed note: over 100 signatures');
      const hash = ((sig[0] << 24) | (sig[1] << 16) | (sig[2] << 8) | sig[3]) >>> 0;
      const pub = name === origin ? byHash.get(hash) : undefined;
      if (!pub) continue; // a signature by a key not pinned: ignored
      if (seen.has(hash)) continue;
      seen.add(hash);
      const s = sig.subarray(4);
      let good = s.length === 64 && lb.ed25519.scalarCanonical(s);
      if (good) {
        if (!(await lb.ed25519.hasEd25519())) throw new NoEd25519();
        good = await lb.ed25519.verify(pub, s, textBytes);
      }
      if (!good) throw new Invalid('the signature by ' + name + ' does not verify');
      verified.push(pub);
    }
    if (!verified.length) throw new Invalid('not signed by a pinned server key (origin "' + origin + '")');
    const c = parseText(text);
    if (!verified.some((pub) => keyId(pub) === c.key)) throw new Invalid('the key line does not name the key that signed (key ' + c.key + ')');
    return c;
  }

  class NoEd25519 extends Error {}

  // checkpoints runs step 9 on an accepted verdict v: each checkpoint in
  // order, then the level. opt.checkpoints are Uint8Arrays, opt.cpKeys
  // {name, pub}; hashes maps a step index to its stated hash.
  async function checkpoints(v, opt, session, hashes) {
    v.level = 'local';
    v.checkpoints = [];
    let full = false;
    for (let i = 0; i < opt.checkpoints.length; i++) {
      const name = 'checkpoint ' + (i + 1);
      let c;
      try {
        c = await open(opt.checkpoints[i], opt.cpKeys);
      } catch (e) {
        if (e instanceof NoEd25519) return { code: 'NO_ED25519', detail: 'this browser has no Ed25519 in WebCrypto: no verdict (this is not a pass)' };
        if (!(e instanceof Invalid)) throw e;
        return { code: 'CHECKPOINT_INVALID', detail: name + ': ' + e.message };
      }
      if (c.session !== session) {
        return { code: 'CHECKPOINT_MISMATCH', detail: name + ' is for session "' + c.session + '", the record is session "' + session + '"' };
      }
      if (c.size <= v.stepCount && hashes.get(c.size - 1) !== c.tip) {
        return { code: 'CHECKPOINT_MISMATCH', detail: name + ': its tip ' + c.tip + ' is not steps[' + (c.size - 1) + '].hash' };
      }
      if (c.size > v.stepCount) {
        return { code: 'TRUNCATED', detail: name + ' counted ' + c.size + ' steps at ' + c.time + '; the record holds ' + v.stepCount };
      }
      full = full || c.size === v.stepCount;
      v.checkpoints.push({ origin: c.origin, size: c.size, time: c.time, keyId: c.key });
    }
    if (full) v.level = 'server';
    return null;
  }

  // sizes are the step indices whose hashes step 9 needs, read from the
  // notes' texts before the record is walked (an unreadable note simply
  // asks for nothing: it is CHECKPOINT_INVALID later).
  function wanted(notes) {
    const out = new Set();
    for (const n of notes) {
      const m = /\nsize ([1-9][0-9]{0,15})\n/.exec(new TextDecoder().decode(n.subarray(0, MAX_NOTE)));
      if (m) out.add(Number(m[1]) - 1);
    }
    return out;
  }

  lb.checkpoint = { readKey, open, checkpoints, wanted, parseText };
})(globalThis.logbook = globalThis.logbook || {});
