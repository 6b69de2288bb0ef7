// A hand-over bundle (docs/bundle.md, logbook/bundle@0): the page opens it
// as its record. The bundle is read strictly, as logbook-verify reads it;
// the record is checked from its own bytes inside the bundle. Nothing the
// bundle carries is trusted for being there: its signerKey is compared
// with the key that signed the record (BUNDLE_KEY_MISMATCH when another),
// never pinned, and a bundle opened with no key pasted is not judged
// (needsTrust), as logbook-verify --bundle judges none without --trust; checkpoints are checked only under keys the reader gives.
(function (lb) {
  'use strict';
  const FORMAT = 'logbook/bundle@0';
  const MEDIA_TYPE = 'application/vnd.logbook.bundle.v0+json';
  const MAX_LOG_PROOFS = 1; // bundle.MaxLogProofs
  const MEMBERS = ['mediaType', 'format', 'record', 'signerKey', 'attestations', 'attestorKeys', 'tsaRoots',
    'checkpoints', 'checkpointKeys', 'logProofs', 'logPolicy'];

  // detect: does the file start like a bundle? (its first members name it)
  function detect(bytes) {
    const head = new TextDecoder().decode(bytes.subarray(0, 256));
    return /"format"\s*:\s*"logbook\/bundle@0"/.test(head) || /"mediaType"\s*:\s*"application\/vnd\.logbook\.bundle/.test(head);
  }

  // recordRange finds the bytes of the top-level member "record" by
  // walking the text (strings and nesting) once it has parsed strictly.
  function recordRange(b) {
    let i = 0, depth = 0, key = null, expectKey = false, start = -1;
    const skipString = () => { i++; while (b[i] !== 0x22) i += b[i] === 0x5c ? 2 : 1; i++; };
    for (; i < b.length;) {
      const c = b[i];
      if (c === 0x22) {
        const s = i;
        skipString();
        if (depth === 1 && expectKey) { key = new TextDecoder().decode(b.subarray(s + 1, i - 1)); expectKey = false; }
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth === 1 && key === 'record' && start < 0) start = i;
        depth++;
        if (depth === 1) expectKey = true;
      } else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (depth === 1 && start >= 0) return [start, i + 1];
      } else if (c === 0x2c && depth === 1) expectKey = true;
      i++;
    }
    return null;
  }

  // read returns {record, signerKey, checkpoints, counts} or {error}.
  function read(bytes) {
    const { K, get } = lb.json;
    let v;
    try {
      v = lb.json.parse(bytes, 65);
    } catch (e) {
      return { error: 'not strict JSON: ' + e.message };
    }
    if (!v || v.t !== K.OBJ) return { error: 'not a JSON object' };
    for (const k of v.keys) if (!MEMBERS.includes(k)) return { error: 'unknown member "' + k + '"' };
    if (get(v, 'format') !== FORMAT) return { error: 'format is not "' + FORMAT + '"' };
    const mt = get(v, 'mediaType');
    if (mt !== undefined && mt !== MEDIA_TYPE) return { error: 'mediaType is not "' + MEDIA_TYPE + '"' };
    const rec = get(v, 'record');
    if (!rec || rec.t !== K.OBJ) return { error: 'record is missing or not an object' };
    const signerKey = get(v, 'signerKey');
    if (typeof signerKey !== 'string' || !signerKey) return { error: 'signerKey is missing or not a string' };
    // Each optional member's type, as logbook-verify's reader
    // (internal/bundle) checks it, in its order and words.
    const str = (x) => typeof x === 'string';
    const nonEmpty = (x) => str(x) && x !== '';
    const isObj = (x) => !str(x) && x && x.t === K.OBJ;
    for (const [k, each, what] of [['attestations', isObj, 'an object'], ['attestorKeys', str, 'a string'], ['tsaRoots'],
      ['checkpoints', nonEmpty, 'a non-empty string'], ['checkpointKeys', nonEmpty, 'a non-empty string'],
      ['logProofs', nonEmpty, 'a non-empty string'], ['logPolicy']]) {
      const m = get(v, k);
      if (m === undefined) continue;
      if (!each) {
        if (!str(m)) return { error: k + ' is not a string' };
        continue;
      }
      if (str(m) || m.t !== K.ARR) return { error: k + ' is not an array' };
      if (k === 'logProofs' && m.items.length > MAX_LOG_PROOFS) return { error: 'logProofs holds ' + m.items.length + ' proofs; at most ' + MAX_LOG_PROOFS };
      const bad = m.items.findIndex((x) => !each(x));
      if (bad >= 0) return { error: k + '[' + bad + '] is not ' + what };
    }
    try {
      lb.readPublicKeyPEM(signerKey);
    } catch (e) {
      return { error: 'signerKey: ' + e.message }; // bundlecheck.Open: an Ed25519 SPKI PEM key, or BUNDLE_INVALID
    }
    const list = (k) => { const a = get(v, k); return a && a.t === K.ARR ? a.items : []; };
    const range = recordRange(bytes);
    if (!range) return { error: 'record is missing or not an object' };
    const checkpoints = list('checkpoints').filter((c) => typeof c === 'string');
    return {
      record: bytes.subarray(range[0], range[1]),
      signerKey,
      checkpoints,
      counts: { checkpoints: checkpoints.length, attestations: list('attestations').length, logProofs: list('logProofs').length },
    };
  }

  const hex = (u8) => [...u8].map((x) => x.toString(16).padStart(2, '0')).join('');

  // keyMismatch: the bundle's signerKey is not the key whose signature
  // verified (the check's publicKey, 32 bytes).
  function keyMismatch(b, pub) {
    try {
      return !pub || hex(lb.readPublicKeyPEM(b.signerKey)) !== hex(pub);
    } catch (e) {
      return true;
    }
  }

  // needsTrust is the verdict on a bundle opened with no key pasted:
  // none, as logbook-verify --bundle without --trust gives none (a usage
  // error, exit 2), in its words.
  function needsTrust() {
    return {
      ok: false, code: null, recordId: null, checkpoints: [],
      detail: 'a bundle is checked under the keys you trust: paste the signer\'s public key above. '
        + 'logbook-verify --bundle needs --trust KEYS: the public keys of the signers you trust '
        + '(a bundle\'s own signerKey proves only that the record is unchanged since someone signed it)',
    };
  }

  lb.bundle = { detect, read, keyMismatch, needsTrust, FORMAT, MEDIA_TYPE };
})(globalThis.logbook = globalThis.logbook || {});
