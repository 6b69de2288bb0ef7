// runback cassettes in the browser: the same six checks, signature states
// and verdicts as runback's own verifier and as logbook-verify (docs/
// runback.md), with the same named findings. The reader here gives what
// Node's JSON.parse gives, which is what runback hashes: duplicate keys
// last-wins, lone surrogates kept, 1E400 as Infinity (written null), own
// "__proto__" members; it names what it tolerated. window.runbackVerify(bytes, options) returns what
// `logbook-verify --json CASSETTE` prints; the page shows the events as a
// timeline.
(function (lb) {
  'use strict';

  const KNOWN = ['runback.audit/v2', 'runback.cassette/v1'];
  const MAX_DEPTH = 1000; // as logbook-verify: jsvalue.MaxDepth
  const BYTES_PER_VALUE = 12, MIN_VALUES = 1024; // jsvalue.BytesPerValue, minValues
  const PRODUCTION_KEY = 'ac33e647e1afbb51dac274af33ac6365aa3b0553cf43cd10ab7b1ad61018bd35';
  const SPKI_ED25519 = '302a300506032b6570032100';
  const PKCS8_ED25519 = '302e020100300506032b657004220420';
  const enc = new TextEncoder();

  class CassetteError extends Error {
    constructor(code, detail) { super(detail); this.code = code; }
  }

  // detect: a JSON object whose top-level "$schema" is a string starting
  // "runback." (values before it skipped unparsed), in the first 64 KiB.
  function detect(bytes) {
    const s = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, 65536));
    let i = ws(s, 0);
    if (s[i] !== '{') return false;
    i++;
    for (;;) {
      i = ws(s, i);
      const k = str(s, i);
      if (k < 0) return false;
      const key = s.slice(i, k);
      i = ws(s, k);
      if (s[i] !== ':') return false;
      i = ws(s, i + 1);
      if (key === '"$schema"') {
        const e = str(s, i);
        return e > 0 && s.startsWith('"runback.', i);
      }
      i = skip(s, i);
      if (i < 0) return false;
      i = ws(s, i);
      if (s[i] !== ',') return false;
      i++;
    }
  }
  const ws = (s, i) => { while (i < s.length && ' \t\n\r'.includes(s[i])) i++; return i; };
  function str(s, i) {
    if (s[i] !== '"') return -1;
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] === '\\') j++;
      else if (s[j] === '"') return j + 1;
    }
    return -1;
  }
  function skip(s, i) {
    let depth = 0;
    while (i < s.length) {
      const c = s[i];
      if (c === '"') { i = str(s, i); if (i < 0) return -1; }
      else if (c === '{' || c === '[') { depth++; i++; }
      else if (c === '}' || c === ']') { depth--; i++; }
      else if (c === ',' && depth === 0) return i;
      else i++;
      if (depth === 0 && (s[i] === ',' || s[i] === '}')) return i;
      if (depth < 0) return -1;
    }
    return -1;
  }

  // parse reads JSON text as JSON.parse does (duplicate keys last-wins,
  // lone surrogates kept, 1E400 as Infinity, own "__proto__" members) and
  // counts what it tolerated, by code, as internal/cassettecheck/jsvalue does.
  // It is not the browser's JSON.parse: Chromium 148's drops or invents
  // keys when an escaped one-character key repeats in an object
  // ({"\/":0,"\u0000":1,"\/":2} gave a key "\\"), which Node, the
  // runtime runback verifies in, does not. Deeper than MAX_DEPTH is an
  // error, as in logbook-verify.
  function parse(text, invalidUTF8, byteLength) {
    // More than one value or key per BYTES_PER_VALUE bytes of UTF-8 text
    // (plus MIN_VALUES) is VALUE_LIMIT, as in logbook-verify
    // (jsvalue.BytesPerValue).
    if (byteLength === undefined) byteLength = new TextEncoder().encode(text).length;
    const maxValues = Math.floor(byteLength / BYTES_PER_VALUE) + MIN_VALUES;
    let values = 0;
    const count = () => {
      if (++values > maxValues) throw new CassetteError('VALUE_LIMIT', 'more than one value per ' + BYTES_PER_VALUE + ' bytes of text: too many to hold in memory');
    };
    const counts = {};
    const add = (c) => { counts[c] = (counts[c] || 0) + 1; };
    if (invalidUTF8) add('INVALID_UTF8');
    let i = 0;
    const fail = (msg) => { throw new CassetteError('JSON_SYNTAX', 'JSON syntax error at ' + i + ': ' + msg); };
    const skipWS = () => { for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i)); };
    const hex4 = () => {
      const h = text.slice(i, i + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('invalid \\u escape');
      i += 4;
      return parseInt(h, 16);
    };
    function str() {
      i++; // "
      let out = '';
      let from = i;
      for (;;) {
        if (i >= text.length) fail('unterminated string');
        const c = text.charCodeAt(i);
        if (c === 34) break;
        if (c < 0x20) fail('control character in string');
        if (c !== 92) { i++; continue; }
        out += text.slice(from, i);
        i++;
        const e = text[i++];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
        if (simple !== undefined) out += simple;
        else if (e === 'u') out += String.fromCharCode(hex4());
        else fail('invalid escape');
        from = i;
      }
      out += text.slice(from, i);
      i++; // "
      const lone = out.match(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g);
      if (lone) for (let n = 0; n < lone.length; n++) add('LONE_SURROGATE');
      return out;
    }
    const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    function num() {
      NUMBER.lastIndex = i;
      const r = NUMBER.exec(text);
      if (!r) fail('invalid number');
      return lit(r[0]);
    }
    function lit(l) {
      i += l.length;
      const n = Number(l);
      if (!isFinite(n)) add('NUMBER_OVERFLOW');
      else if (/^-?\d+$/.test(l) && l.replace('-', '').length > 15 && String(n) !== l) add('NUMBER_PRECISION');
      return n;
    }
    function value(depth) {
      if (i < text.length) count();
      const c = text[i];
      if (c === '{' || c === '[') {
        if (depth + 1 > MAX_DEPTH) throw new CassetteError('DEPTH_LIMIT', 'nested deeper than ' + MAX_DEPTH + ' levels');
        i++;
        skipWS();
        if (c === '[') {
          const a = [];
          if (text[i] === ']') { i++; return a; }
          for (;;) {
            skipWS();
            if (i >= text.length) fail('unexpected end of input');
            a.push(value(depth + 1));
            skipWS();
            if (text[i] === ',') { i++; continue; }
            if (text[i] === ']') { i++; return a; }
            fail('expected , or ] in array');
          }
        }
        const o = {};
        if (text[i] === '}') { i++; return o; }
        for (;;) {
          skipWS();
          if (text[i] !== '"') fail('expected a string key');
          const k = str();
          count();
          skipWS();
          if (text[i] !== ':') fail('expected : after key');
          i++;
          skipWS();
          if (k === '__proto__') add('PROTO_KEY');
          if (i >= text.length) fail('unexpected end of input');
          const v = value(depth + 1);
          if (Object.prototype.hasOwnProperty.call(o, k)) add('DUPLICATE_KEY');
          // An own data property, as JSON.parse makes it (even "__proto__").
          Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
          skipWS();
          if (text[i] === ',') { i++; continue; }
          if (text[i] === '}') { i++; return o; }
          fail('expected , or } in object');
        }
      }
      if (c === '"') return str();
      if (c === '-' || (c >= '0' && c <= '9')) return num();
      for (const [w, v] of [['true', true], ['false', false], ['null', null]]) {
        if (text.startsWith(w, i)) { i += w.length; return v; }
      }
      if (i >= text.length) fail('unexpected end of input');
      return fail('unexpected character');
    }
    skipWS();
    const v = value(0);
    skipWS();
    if (i !== text.length) fail('unexpected data after the value');
    return { value: v, counts };
  }

  // canonical is runback's canonical(), over what JSON.parse returned.
  function canonical(v, skipTop) {
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
    if (Array.isArray(v)) return '[' + v.map((x) => canonical(x)).join(',') + ']';
    const parts = [];
    for (const k of Object.keys(v).sort()) {
      if (k === skipTop || v[k] === undefined) continue;
      parts.push(JSON.stringify(k) + ':' + canonical(v[k]));
    }
    return '{' + parts.join(',') + '}';
  }
  const sha256 = (s) => lb.sha256(enc.encode(s));

  function project(input, projection) {
    const keep = projection?.keep;
    const drop = projection?.drop;
    if ((!keep || keep.length === 0) && (!drop || drop.length === 0)) return input;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
    const work = JSON.parse(JSON.stringify(input));
    if (keep && keep.length) {
      const top = new Set(keep.map((k) => k.split('.')[0]));
      for (const k of Object.keys(work)) if (!top.has(k)) delete work[k];
    }
    const dropPath = (node, segs) => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) { node.forEach((x) => dropPath(x, segs)); return; }
      const [head, ...rest] = segs;
      if (rest.length === 0) delete node[head];
      // Own members only: Object.prototype is not the cassette's to edit.
      else if (Object.prototype.hasOwnProperty.call(node, head)) dropPath(node[head], rest);
    };
    if (drop && drop.length) for (const p of drop) dropPath(work, p.split('.'));
    return work;
  }

  function entryOf(e) {
    if (e.type === 'llm') {
      return { kind: 'llm', key: sha256(`llm:${e.model?.model_id ?? ''}:${canonical(project(e.request, e.key_projection))}`), output: e.error ? { error: e.error } : e.response };
    }
    if (e.type === 'tool') {
      return { kind: 'tool', key: sha256(`tool:${e.tool_name ?? ''}:${canonical(project(e.input, e.key_projection))}`), output: e.error ? { error: e.error } : e.output };
    }
    if (e.type === 'env') return { kind: e.kind, key: e.key, output: e.output };
    return null;
  }

  function cassetteDigest(events) {
    const ordered = [...events].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    let prev = '';
    let n = 0;
    for (const e of ordered) {
      const x = entryOf(e);
      if (!x) continue;
      prev = sha256(prev + canonical({ kind: x.kind, key: x.key, output: x.output }));
      n++;
    }
    return { digest: prev || sha256(''), count: n };
  }

  const b64bytes = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

  // readKey is the embedded key as logbook-verify reads it (the rules of
  // internal/cassettecheck's parseKey): a PEM string, or a key object as Node's
  // createPublicKey takes one ({key, format, type, encoding}; readKeyObject).
  async function readKey(v, notes) {
    if (typeof v === 'string') return pemKey(v, notes);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return readKeyObject(v, notes);
    return null;
  }

  // pemKey reads PEM text: a "PUBLIC KEY" in the one Ed25519 SPKI form, or
  // a "PRIVATE KEY" in the one Ed25519 PKCS#8 form (its public half);
  // another well-formed DER SEQUENCE under "PUBLIC KEY" is a key of
  // another algorithm. Base64 as Go's PEM decoder takes it: padded, with
  // only spaces, tabs and line ends ignored.
  async function pemKey(pem, notes) {
    const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)\n-----END \1-----[ \t]*(\r?\n|$)/.exec(pem);
    if (!m) return null;
    const body = m[2].replace(/[ \t\r\n]/g, '');
    if (body.length % 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return null;
    let der;
    try { der = b64bytes(body); } catch (e) { return null; }
    if (m[1] === 'PUBLIC KEY') return spkiKey(der, notes);
    if (m[1] === 'PRIVATE KEY') return pkcs8Key(der, notes);
    return null;
  }

  function spkiKey(der, notes) {
    if (der.length === 44 && lb.hex(der).startsWith(SPKI_ED25519)) return der.slice(12);
    notes.nonEd25519 = derSequence(der);
    return null;
  }

  async function pkcs8Key(der, notes) {
    if (der.length !== 48 || !lb.hex(der).startsWith(PKCS8_ED25519)) return null;
    try {
      const k = await crypto.subtle.importKey('pkcs8', der, { name: 'Ed25519' }, true, ['sign']);
      const jwk = await crypto.subtle.exportKey('jwk', k);
      notes.privateKeyPEM = true;
      return nodeBase64(jwk.x);
    } catch (e) { return null; }
  }

  // own is an object's own member (what internal/cassettecheck/jsvalue's Prop
  // reads), never one inherited.
  const own = (o, k) => (o !== null && typeof o === 'object' && !Array.isArray(o) && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

  // readKeyObject is internal/cassettecheck's parseKeyObject: format "jwk" reads
  // key as a JSON Web Key (RFC 8037); otherwise key must be a string, PEM
  // by default or DER with format "der" and type "spki" (or "pkcs8": the
  // public half of a private key), decoded from the string by encoding
  // (utf8 by default, or hex, base64, base64url, latin1). A bare JWK, with
  // no "key" member, is not a key to Node: it throws, runback says invalid.
  async function readKeyObject(v, notes) {
    const data = own(v, 'key'), format = own(v, 'format');
    if (format === 'jwk') return jwkKey(data, notes);
    if (typeof data !== 'string') return null;
    const enc = own(v, 'encoding');
    if (format === undefined || format === 'pem') {
      if (enc === undefined) return pemKey(data, notes);
      const raw = nodeDecode(data, enc);
      if (!raw) return null;
      let text = '';
      for (const b of raw) text += String.fromCharCode(b);
      return pemKey(text, notes);
    }
    if (format !== 'der') return null;
    const raw = nodeDecode(data, enc);
    if (!raw) return null;
    const type = own(v, 'type');
    if (type === 'spki') return spkiKey(raw, notes);
    if (type === 'pkcs8') return pkcs8Key(raw, notes);
    if (type === 'pkcs1' || type === 'sec1') notes.nonEd25519 = derSequence(raw); // an RSA or EC key
    return null;
  }

  // jwkKey reads a JSON Web Key as Node does for a public key: kty one of
  // RSA, EC, OKP; for OKP crv one of Ed25519, Ed448, X25519, X448 and x a
  // string, decoded as Node decodes base64 (either alphabet), which must
  // give 32 bytes for Ed25519. A "d" member is ignored: the public half is
  // read from x. RSA, EC and the other curves are keys of another
  // algorithm.
  function jwkKey(k, notes) {
    if (k === null || typeof k !== 'object' || Array.isArray(k)) return null;
    const kty = own(k, 'kty');
    if (kty === 'RSA' || kty === 'EC') { notes.nonEd25519 = true; return null; }
    if (kty !== 'OKP') return null;
    const crv = own(k, 'crv'), x = own(k, 'x');
    if (typeof crv !== 'string' || typeof x !== 'string') return null;
    if (crv === 'Ed448' || crv === 'X25519' || crv === 'X448') { notes.nonEd25519 = true; return null; }
    if (crv !== 'Ed25519') return null;
    const raw = nodeBase64(x);
    return raw.length === 32 ? raw : null;
  }

  // nodeDecode is Buffer.from(s, encoding) for the encodings a key string
  // is given in; an unknown encoding throws in Node (null here).
  function nodeDecode(s, enc) {
    if (enc === undefined) return enc8.encode(s);
    if (typeof enc !== 'string') return null;
    switch (enc.toLowerCase()) {
      case 'utf8': case 'utf-8': return enc8.encode(s);
      case 'hex': return nodeHex(s);
      case 'base64': case 'base64url': return nodeBase64(s);
      case 'latin1': case 'binary': {
        const out = new Uint8Array(s.length);
        for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
        return out;
      }
    }
    return null;
  }
  const enc8 = new TextEncoder();

  // nodeBase64 decodes as Node 20's Buffer.from(s, "base64"): both
  // alphabets, other characters skipped, stopped at the first "="; a
  // trailing group of two or three digits gives one or two bytes.
  function nodeBase64(s) {
    const out = [];
    let acc = 0, n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      let v;
      if (c >= 65 && c <= 90) v = c - 65;
      else if (c >= 97 && c <= 122) v = c - 97 + 26;
      else if (c >= 48 && c <= 57) v = c - 48 + 52;
      else if (c === 43 || c === 45) v = 62;
      else if (c === 47 || c === 95) v = 63;
      else if (c === 61) break;
      else continue;
      acc = (acc << 6) | v;
      if (++n === 4) { out.push((acc >> 16) & 255, (acc >> 8) & 255, acc & 255); acc = 0; n = 0; }
    }
    if (n === 2) out.push((acc >> 4) & 255);
    if (n === 3) out.push((acc >> 10) & 255, (acc >> 2) & 255);
    return new Uint8Array(out);
  }

  // publicKeyText reads a pinned or revoked key as runback.PublicKey does:
  // an SPKI PEM, or JSON: a bare JWK ({"kty":...}) or a key object
  // ({"key":..., "format":...}) read as Node reads it.
  async function publicKeyText(text) {
    const t = text.replace(/^[ \t\r\n]+/, '');
    if (!t.startsWith('{')) return lb.readPublicKeyPEM(text);
    let v;
    try { v = JSON.parse(t); } catch (e) { throw new Error('not a JSON key: ' + e.message); }
    const notes = {};
    const pub = own(v, 'key') === undefined && own(v, 'kty') !== undefined ? jwkKey(v, notes) : await readKeyObject(v, notes);
    if (notes.nonEd25519) throw new Error('not an Ed25519 key (NON_ED25519_KEY)');
    if (!pub) throw new Error('not an Ed25519 key: want a JWK {"kty":"OKP","crv":"Ed25519","x":BASE64URL} or a key object {"key":...,"format":...}');
    return pub;
  }

  function derSequence(der) {
    if (der.length < 2 || der[0] !== 0x30) return false;
    let n = der[1], i = 2;
    if (n >= 0x80) {
      const k = n - 0x80;
      if (k === 0 || k > 3 || der.length < 2 + k || der[2] === 0) return false;
      n = 0;
      for (let j = 0; j < k; j++) n = n * 256 + der[2 + j];
      if (n < 0x80) return false;
      i += k;
    }
    return der.length - i === n;
  }

  function nodeHex(s) {
    const out = [];
    for (let i = 0; i + 1 < s.length; i += 2) {
      const pair = s.slice(i, i + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
      out.push(parseInt(pair, 16));
    }
    return new Uint8Array(out);
  }
  function noteHex(s, notes) {
    if (s.length % 2 || /[^0-9a-fA-F]/.test(s)) notes.hexGarbage = true;
    if (/[A-F]/.test(s)) notes.hexUpper = true;
  }
  const sameKey = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  async function signature(manifest, opt, notes) {
    const sig = manifest?.signature;
    if (!sig?.value) return ['unsigned', null];
    const payload = enc.encode(`${manifest.content_digest}:${manifest.replay?.cassette_digest}`);
    notes.valueNotString = typeof sig.value !== 'string';
    if (sig.alg === 'Ed25519') {
      if (!sig.pubkey) return ['no-key', 'Ed25519'];
      try {
        const pub = await readKey(sig.pubkey, notes);
        if (!pub) return ['invalid', 'Ed25519'];
        const v = String(sig.value);
        noteHex(v, notes);
        if (!(await lb.ed25519.verify(pub, nodeHex(v), payload))) return ['invalid', 'Ed25519'];
        if (opt.revoked.some((k) => sameKey(k, pub))) return ['revoked', 'Ed25519'];
        return [opt.pinned.some((k) => sameKey(k, pub)) ? 'valid' : 'valid-unpinned', 'Ed25519'];
      } catch (e) {
        return ['invalid', 'Ed25519'];
      }
    }
    notes.algUnknown = sig.alg !== 'HMAC-SHA256';
    const v = String(sig.value);
    if (!opt.hmacKeys.length) return ['no-key', 'HMAC-SHA256'];
    noteHex(v, notes);
    let match = false;
    for (const key of opt.hmacKeys) {
      const k = await crypto.subtle.importKey('raw', enc.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const mac = enc.encode(lb.hex(new Uint8Array(await crypto.subtle.sign('HMAC', k, payload))));
      const got = enc.encode(v); // as Buffer.from(String(value)): lone surrogates are U+FFFD
      if (mac.length === got.length && mac.every((x, i) => x === got[i])) match = true;
    }
    return [match ? 'valid' : 'invalid', 'HMAC-SHA256'];
  }

  function consistency(rec, events) {
    const reasons = [];
    const ids = new Set(events.map((e) => e && e.run_id).filter(Boolean));
    const mid = rec.manifest && rec.manifest.run_id;
    if (mid && ids.size && !ids.has(mid)) reasons.push(`manifest.run_id (${mid}) is not the run_id in the signed events`);
    const end = events.find((e) => e && e.type === 'run' && e.phase === 'end');
    const run = rec.run;
    if (run && end) {
      if (run.status !== undefined && run.status !== end.status) reasons.push(`run.status (${run.status}) contradicts the sealed run-end event (${end.status})`);
      if (run.output !== undefined && !jsonEqual(run.output, end.output ?? null)) reasons.push('run.output does not match the sealed run-end event');
      if (run.error !== undefined && !jsonEqual(run.error, end.error ?? null)) reasons.push('run.error does not match the sealed run-end event');
    }
    return reasons;
  }
  function jsonEqual(a, b) {
    if (a === b) return true;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }

  function findings(rec, events, entries, res, notes) {
    const out = [];
    const add = (code, detail) => out.push({ code, detail });
    if (!res.checks.schema) add('UNKNOWN_SCHEMA', '$schema ' + JSON.stringify(String(rec.$schema)) + ' is not one runback checks');
    if (events.length === 0) add('EMPTY_RECORD', 'the cassette has no events');
    else if (!events.some((e) => e && e.type === 'run' && e.phase === 'end')) add('NO_RUN_END', 'no run-end event');
    let prev = -Infinity, ooo = -1, dup = -1, nan = -1;
    const seen = new Set();
    events.forEach((e, i) => {
      const s = e !== null && typeof e === 'object' && !Array.isArray(e) ? e.seq : undefined;
      if (typeof s !== 'number' || !isFinite(s)) { if (nan < 0) nan = i; return; }
      if (seen.has(s) && dup < 0) dup = i;
      seen.add(s);
      if (s < prev && ooo < 0) ooo = i;
      prev = s;
    });
    if (ooo >= 0) add('SEQ_OUT_OF_ORDER', `events[${ooo}] comes before a lower seq`);
    if (dup >= 0) add('SEQ_DUPLICATE', `events[${dup}] repeats a seq`);
    if (nan >= 0) add('SEQ_NOT_NUMBER', `events[${nan}].seq is not a finite number`);
    const ids = new Set(events.map((e) => e && e.run_id).filter(Boolean));
    if (ids.size > 1) add('RUN_ID_MIXED', `events carry ${ids.size} different run_id values`);
    const m = rec.manifest;
    if (m?.event_count !== events.length) add('EVENT_COUNT_MISMATCH', 'manifest.event_count is not the number of events');
    if (m?.replay?.entry_count !== entries) add('ENTRY_COUNT_MISMATCH', 'manifest.replay.entry_count is not the number of oracle entries');
    const signed = m?.signed;
    if (typeof signed !== 'boolean' || signed !== (res.checks.signature !== 'unsigned')) add('SIGNED_FLAG_MISMATCH', 'manifest.signed disagrees with the signature');
    if (notes.valueNotString) add('SIGNATURE_NOT_STRING', 'signature value is not a string');
    if (notes.hexGarbage) add('HEX_TRAILING_GARBAGE', 'signature value is not an even run of hex digits');
    if (notes.hexUpper) add('HEX_UPPERCASE', 'signature value uses upper-case hex');
    if (notes.algUnknown) add('UNKNOWN_SIGNATURE_ALG', 'signature alg is neither Ed25519 nor HMAC-SHA256');
    if (notes.nonEd25519) add('NON_ED25519_KEY', 'the embedded key is not an Ed25519 key');
    if (notes.privateKeyPEM) add('PRIVATE_KEY_EMBEDDED', 'manifest.signature.pubkey holds a private key');
    if (notes.embedded && lb.ed25519.weakKey(notes.embedded)) add('SMALL_ORDER_KEY', 'embedded Ed25519 key: ' + lb.ed25519.weakKey(notes.embedded));
    if (res.checks.signature === 'revoked') add('REVOKED_KEY', 'signed by a revoked key');
    return out;
  }

  const NOTE = {
    DUPLICATE_KEY: 'duplicate object key: the hash covers the last value only',
    LONE_SURROGATE: 'string with a lone UTF-16 surrogate',
    INVALID_UTF8: 'bytes that are not UTF-8, read as U+FFFD',
    NUMBER_OVERFLOW: 'number beyond the double range, hashed as null',
    NUMBER_PRECISION: 'integer beyond 2^53, hashed as a different number',
    PROTO_KEY: 'own "__proto__" member',
  };

  // verify checks cassette bytes. options: pubkeys (SPKI PEM, JWK or Node
  // key object texts, as logbook-verify --pubkey reads them; none given
  // pins runback's production key), revoked (the same), hmacKeys
  // (strings), strict. It never throws: errors come back as {error}.
  async function verify(bytes, options = {}) {
    try {
      return await verifyOrThrow(bytes, options);
    } catch (e) {
      const code = e instanceof CassetteError ? e.code : e instanceof SyntaxError ? 'JSON_SYNTAX' : e instanceof RangeError ? 'DEPTH_LIMIT' : 'TYPE_ERROR';
      return { verdict: 'invalid', error: { code, detail: String(e && e.message) } };
    }
  }

  async function verifyOrThrow(bytes, options) {
    let text, invalidUTF8 = false;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch (e) {
      text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      invalidUTF8 = true;
    }
    const { value: rec, counts } = parse(text, invalidUTF8, invalidUTF8 ? undefined : bytes.length);
    if (!rec?.manifest || !Array.isArray(rec.events)) throw new CassetteError('NOT_A_CASSETTE', 'Not a runback.cassette record — missing manifest or events array.');
    const key = async (p) => {
      let k;
      try { k = await publicKeyText(String(p)); } catch (e) { throw new CassetteError('USAGE', 'pinned or revoked key: ' + e.message); }
      const weak = lb.ed25519.weakKey(k);
      if (weak) throw new CassetteError('USAGE', 'pinned or revoked key: ' + weak + ' (SMALL_ORDER_KEY)');
      return k;
    };
    const keys = async (list) => { const out = []; for (const p of list) out.push(await key(p)); return out; };
    const opt = {
      pinned: (options.pubkeys && options.pubkeys.length ? await keys(options.pubkeys) : options.pinNothing ? [] : [lb.unhex(PRODUCTION_KEY)]),
      revoked: await keys(options.revoked || []),
      hmacKeys: (options.hmacKeys || []).filter((k) => k),
    };
    const events = rec.events;
    let prev = '';
    const hashes = events.map((e) => (prev = sha256(prev + canonical(e, e !== null && typeof e === 'object' && !Array.isArray(e) ? '_hash' : undefined))));
    const digest = prev || sha256('');
    const cd = cassetteDigest(events);
    let firstBad = -1;
    const chain = hashes.every((h, i) => { const ok = h === events[i]?._hash; if (!ok) firstBad = i; return ok; });
    const checks = {
      schema: KNOWN.includes(rec.$schema),
      chain,
      digest: digest === rec.manifest?.content_digest,
      cassette: cd.digest === rec.manifest?.replay?.cassette_digest,
      consistent: true,
      signature: 'unsigned',
      signature_alg: null,
    };
    const sigNotes = {};
    [checks.signature, checks.signature_alg] = await signature(rec.manifest, opt, sigNotes);
    if (checks.signature_alg === 'Ed25519' && !sigNotes.nonEd25519) {
      try { sigNotes.embedded = await readKey(rec.manifest.signature.pubkey, {}); } catch (e) { /* none */ }
    }
    const reasons = consistency(rec, events);
    checks.consistent = reasons.length === 0;
    const integrity = checks.chain && checks.digest && checks.cassette && checks.schema && checks.consistent;
    const valid = integrity && checks.signature === 'valid';
    const verdict = !integrity || checks.signature === 'invalid' ? 'invalid' : valid ? 'valid' : 'unverified';
    const res = { valid, verdict, integrity, checks, consistency_failures: reasons };
    const fs = Object.keys(counts).sort().map((code) => ({ code, detail: NOTE[code], count: counts[code] }));
    res.findings = fs.concat(findings(rec, events, cd.count, res, sigNotes));
    res.runback_verdict = verdict;
    res.strict = !!options.strict;
    if (res.strict && res.findings.length) { res.verdict = 'invalid'; res.valid = false; }
    res.failed_checks = ['schema', 'consistent', 'chain', 'digest', 'cassette'].filter((c) => !checks[c]);
    if (checks.signature === 'invalid') res.failed_checks.push('signature');
    res.first_bad_event = firstBad;
    res.events = events; // for the timeline; not in logbook-verify's output
    return res;
  }

  // ---- the page ----

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  const nameOf = (e) => e?.model?.model_id ?? e?.tool_name ?? e?.kind ?? e?.phase ?? '';
  const brief = (v) => {
    if (v === undefined) return '';
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    return s.length > 160 ? s.slice(0, 160) + '…' : s;
  };

  // show renders a verdict and the events as a timeline into the page's
  // #verdict and #timeline sections.
  async function show(name, bytes, pubkeys, hmacKey) {
    const started = performance.now();
    const r = await verify(bytes, { pubkeys, hmacKeys: hmacKey ? [hmacKey] : [] });
    const ms = performance.now() - started;
    const box = document.getElementById('verdict');
    box.hidden = false;
    box.replaceChildren();
    box.className = r.verdict === 'valid' ? 'accepted' : r.verdict === 'unverified' ? 'no-verdict' : 'refused';
    box.dataset.verdict = r.verdict;
    box.dataset.kind = 'cassette';
    const head = el('h2', 'status');
    head.append(el('span', 'word', { valid: 'Valid', unverified: 'Unverified', invalid: 'Invalid' }[r.verdict]), el('code', 'code', 'runback cassette'));
    box.append(head);
    box.append(el('p', 'meaning', name + ' — checked in ' + Math.round(ms) + ' ms, here, with the runback rules (docs/runback.md).'));
    if (r.error) {
      box.append(el('p', 'meaning', r.error.code + ': ' + r.error.detail));
    } else {
      const dl = el('dl', 'kv');
      for (const c of ['schema', 'consistent', 'chain', 'digest', 'cassette']) {
        dl.append(el('dt', null, c), el('dd', r.checks[c] ? 'ok' : 'bad', r.checks[c] ? 'ok' : 'FAIL' + (c === 'chain' ? ' at events[' + r.first_bad_event + ']' : '')));
      }
      dl.append(el('dt', null, 'signature'), el('dd', r.checks.signature === 'valid' ? 'ok' : 'bad', r.checks.signature + (r.checks.signature_alg ? ' (' + r.checks.signature_alg + ')' : '')));
      box.append(dl);
      if (r.checks.signature_alg === 'HMAC-SHA256') box.append(el('p', 'hint', 'HMAC proves custody of a shared secret, not identity: whoever holds the key could have made this cassette.'));
      for (const f of r.consistency_failures) box.append(el('p', 'meaning', f));
      const ul = el('ul', 'findings');
      for (const f of r.findings) ul.append(el('li', null, f.code + ': ' + f.detail));
      if (r.findings.length) box.append(el('p', 'field', 'Findings (runback accepts these; logbook names them)'), ul);
    }
    document.getElementById('session').hidden = true;
    const tl = document.getElementById('timeline');
    tl.replaceChildren();
    tl.hidden = !r.events;
    if (r.events) {
      tl.append(el('h2', null, 'Events (' + r.events.length + ')'));
      const table = el('table', 'steps cassette');
      const t0 = Date.parse(r.events[0]?.ts_start);
      r.events.slice(0, 2000).forEach((e, i) => {
        const tr = el('tr', 'kind-' + (e?.type ?? ''));
        if (i === r.first_bad_event) tr.classList.add('bad');
        tr.append(el('td', 'seq', e?.seq ?? ''), el('td', 'time', e?.ts_start ? '+' + (Date.parse(e.ts_start) - t0) + ' ms' : ''));
        const kind = el('td', 'kind');
        kind.append(el('span', 'badge', e?.type ?? '?'));
        tr.append(kind, el('td', 'summary', nameOf(e)));
        const out = e?.type === 'llm' ? e.response : e?.type === 'run' ? e.status : e?.output;
        tr.append(el('td', 'data', e?.error ? 'error: ' + brief(e.error) : brief(out)));
        tr.append(el('td', 'digests', typeof e?._hash === 'string' ? e._hash.slice(0, 12) + '…' : ''));
        table.append(tr);
      });
      tl.append(table);
    }
    document.body.dataset.state = 'done';
    return r;
  }

  // digests are the event hashes, content_digest and cassette digest of a
  // parsed cassette (tests run them under Node, over Node's own JSON.parse).
  function digests(rec) {
    let prev = '';
    const hashes = rec.events.map((e) => (prev = sha256(prev + canonical(e, e !== null && typeof e === 'object' && !Array.isArray(e) ? '_hash' : undefined))));
    const cd = cassetteDigest(rec.events);
    return { hashes, digest: prev || sha256(''), cassette: cd.digest, entries: cd.count };
  }

  lb.cassette = { detect, verify, show, canonical, digests, parse: (text) => parse(text, false).value };
  globalThis.runbackVerify = async (bytes, options) => {
    const r = await verify(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), options);
    delete r.events;
    return r;
  };
})(globalThis.logbook = globalThis.logbook || {});
