// The verification order of spec §7, and window.logbookVerify: the same
// verdict, with the same fields, as `logbook-verify --json`.
(function (lb) {
  'use strict';
  const { get, parse, JsonError, NUL } = lb.json;
  const { Writer, write, writeString, order } = lb.jcs;

  const MAX_DEPTH = 64; // spec §1
  const DOMAIN = 'logbook/record@0/v1';
  const ID_PREFIX = 'logbook/id/v1';
  const SPKI_PREFIX = '302a300506032b6570032100';
  const EMPTY_TIP = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'; // sha256("")

  // CODES are the verdicts only this page gives; the meaning of every
  // refusal code is internal/format's table (codes.js, loaded first).
  const CODES = {
    NO_ED25519: 'This browser offers no Ed25519 (WebCrypto): no verdict was reached. This is not a pass.',
  };

  const refuse = (code, detail) => ({ ok: false, code, detail, recordId: null, keyId: null, stepCount: null });

  // POLICY holds the checks of spec §7 step 8, run in order once the
  // signature has verified. Each gets the verdict so far (ok, ids, the
  // signer's 32 key bytes) and the options, and returns a refusal
  // {code, detail} or null.
  const POLICY = [
    function pinnedSigner(v, opt) {
      if (!opt.pinned.length) return null;
      v.pinned = opt.pinned.some((k) => k.every((b, i) => b === v.publicKey[i]));
      if (v.pinned) return null;
      return {
        code: 'SIGNER_NOT_TRUSTED',
        detail: 'the signature is sound, but the key ' + v.keyId + ' is not among the pinned keys',
      };
    },
  ];

  // readPublicKeyPEM returns the 32 key bytes of an Ed25519 public key in
  // an SPKI PEM block ("PUBLIC KEY", as `openssl pkey -pubout` and
  // `logbook-seal --new-key` write it), or throws saying what is wrong.
  function readPublicKeyPEM(text) {
    const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(text);
    if (!m) throw new Error('no PEM block found');
    if (m[1] !== 'PUBLIC KEY') throw new Error('PEM block is "' + m[1] + '", want "PUBLIC KEY" (SPKI)');
    const body = m[2].replace(/\s+/g, '');
    let der;
    try {
      der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
    } catch (e) {
      throw new Error('PEM body is not base64');
    }
    // An Ed25519 SPKI has exactly one DER encoding (RFC 8410): this prefix
    // and the 32 key bytes.
    if (der.length !== 44 || lb.hex(der.subarray(0, 12)) !== SPKI_PREFIX) {
      throw new Error('not an Ed25519 SubjectPublicKeyInfo');
    }
    return der.slice(12);
  }

  // StepWalker checks the steps one at a time as the reader hands them over
  // (spec §7 steps 2-4) and keeps the first failure of each kind, so that
  // the verdict follows the spec's order although the checks run in one
  // pass. It writes each step's canonical bytes once, into the steps array
  // of the signed bytes, and takes the step's hash over those bytes without
  // its "hash" member.
  class StepWalker {
    constructor(size, want) {
      this.want = want; // step indices whose stated hash step 9 needs
      this.hashes = new Map();
      this.w = new Writer(size);
      this.w.byte(0x5b);
      this.h = new lb.Sha256();
      this.n = 0;
      this.shape = null;
      this.order = null;
      this.chain = null;
      this.last = new lb.Sha256(); // the previous step's recomputed hash, in last.h
      this.spans = null; // with keep 'lazy', each step's first and last byte (+1) in the file
      this.pick = null; // with a pick, what it returns for each step, in picked
      this.picked = null;
    }

    // lastHash is the last step's recomputed hash, as hex.
    get lastHash() {
      return this.n ? lb.hex(wordBytes(this.last.h)) : null;
    }

    step(st, i, from, to) {
      this.n = i + 1;
      if (this.spans) this.spans.push(from, to);
      if (this.shape) return; // outranks anything a later step shows; reading goes on for NOT_JSON
      const d = lb.shape.checkStep(st, i);
      if (d) { this.shape = refuse('SHAPE', d); return; }
      if (this.pick) {
        // What the page shows never decides the verdict: a pick that
        // throws is dropped (the page reads the steps again instead).
        try { this.picked.push(this.pick(st)); } catch { this.pick = null; this.picked = null; }
      }
      if (this.want.has(i)) this.hashes.set(i, get(st, 'hash'));
      const seq = get(st, 'seq');
      if (!this.order && Number(seq.lit) !== i) this.order = refuse('STEP_OUT_OF_ORDER', 'steps[' + i + '].seq is ' + seq.lit);
      const w = this.w;
      if (i > 0) w.byte(0x2c);
      const start = w.n;
      let cutFrom = -1, cutTo = -1; // the "hash" member and one comma next to it
      w.byte(0x7b);
      const idx = order(st);
      for (let n = 0; n < st.keys.length; n++) {
        const key = st.keys[idx[n]];
        if (n > 0) w.byte(0x2c);
        if (key === 'hash') cutFrom = n > 0 ? w.n - 1 : w.n;
        writeString(w, key);
        w.byte(0x3a);
        write(w, st.vals[idx[n]]);
        if (key === 'hash') cutTo = n === 0 ? w.n + 1 : w.n;
      }
      w.byte(0x7d);
      const h = this.h;
      h.reset();
      h.update(w.buf, start, cutFrom);
      h.update(w.buf, cutTo, w.n);
      h.finish();
      if (!this.chain) {
        const prev = get(st, 'prev');
        if (i === 0 && prev !== NUL) this.chain = refuse('CHAIN_BROKEN', 'steps[0].prev is not null');
        else if (i > 0 && !this.last.is(prev)) {
          this.chain = refuse('CHAIN_BROKEN', 'steps[' + i + '].prev is not the hash of steps[' + (i - 1) + ']');
        } else if (!h.is(get(st, 'hash'))) this.chain = refuse('CHAIN_BROKEN', 'steps[' + i + '].hash does not recompute');
      }
      this.last.h.set(h.h);
    }

    // bytes returns the canonical steps array.
    bytes() {
      this.w.byte(0x5d);
      return this.w.bytes();
    }
  }

  // wordBytes returns a hash's eight big-endian words as its 32 bytes.
  function wordBytes(h) {
    const out = new Uint8Array(32);
    for (let j = 0; j < 8; j++) {
      out[4 * j] = h[j] >>> 24; out[4 * j + 1] = h[j] >>> 16; out[4 * j + 2] = h[j] >>> 8; out[4 * j + 3] = h[j];
    }
    return out;
  }

  // member writes "key": to w, with a comma first unless it is the first.
  function member(w, key, first) {
    if (!first) w.byte(0x2c);
    writeString(w, key);
    w.byte(0x3a);
  }

  // Steps are a checked record's steps for display (v.steps): length,
  // at(i) and for…of. From a record read with keep 'lazy' a step is read
  // again from its bytes when asked for: a 100,000-step record's parsed
  // steps, all kept while the check runs, cost it a third more time (the
  // collector's), and the page shows a few of them at a time.
  class Steps {
    constructor(items, bytes, spans) {
      this.items = items; // the parsed steps, when the record kept them
      this.bytes = bytes;
      this.spans = spans;
      this.length = items ? items.length : spans.length / 2;
    }

    at(i) {
      if (this.items) return this.items[i];
      // The bytes read as a step once, strictly: reading them again gives
      // the same tree (a step is at depth 2 of the record).
      return parse(this.bytes.subarray(this.spans[2 * i], this.spans[2 * i + 1]), MAX_DEPTH - 2);
    }

    *[Symbol.iterator]() {
      for (let i = 0; i < this.length; i++) yield this.at(i);
    }
  }

  // verifyRecord runs spec §7 on a record file's bytes. opt.pinned holds
  // 32-byte keys; with keep true, the parsed record keeps its steps (for
  // display); with keep 'lazy' it does not, and v.steps reads each one
  // from the bytes when asked for. With pick, v.picked holds what pick
  // returned for each step, as the check read it. It resolves to the verdict.
  async function verifyRecord(bytes, opt, keep, pick) {
    const walk = new StepWalker(bytes.length + 64, lb.checkpoint.wanted(opt.checkpoints));
    if (keep === 'lazy') walk.spans = [];
    if (pick) { walk.pick = pick; walk.picked = []; }
    let rec;
    try {
      rec = parse(bytes, MAX_DEPTH, { key: 'steps', each: (st, i, from, to) => walk.step(st, i, from, to), keep: keep === true });
    } catch (e) {
      if (e instanceof JsonError) return refuse('NOT_JSON', e.message);
      if (e instanceof RangeError) return refuse('NOT_JSON', 'too large or too deep for this browser: ' + e.message);
      throw e;
    }
    // Not a damaged record: the signed tombstone a server's retention
    // policy left in place of one (logbook-verify checks its signature).
    if (get(rec, 'v') === 'logbook/tombstone@0') {
      const str = (k) => (typeof get(rec, k) === 'string' ? get(rec, k) : '?');
      return refuse('TOMBSTONED', 'session ' + str('session') + "'s record was deleted at " + str('deletedAt') + ' by ' + str('deletedBy') + ': ' + str('reason') + '; this tombstone stands for it');
    }
    const d = lb.shape.checkRecord(rec);
    if (d) return refuse('SHAPE', d);
    if (walk.shape) return walk.shape;
    if (walk.order) return walk.order;
    if (walk.chain) return walk.chain;

    // The signed bytes (§6), canonical: {"domain":…,"payload":{"chainTip",
    // "publicKey","session","signerIdentity"?,"stepCount","steps",
    // "version"},"timestamp":endedAt,"v":1}.
    const session = get(rec, 'session'), sig = get(rec, 'signature'), identity = get(rec, 'signerIdentity');
    const steps = walk.bytes();
    const w = new Writer(steps.length + 4096);
    // The record id's prefix goes first, so that sha256(prefix ‖ signed
    // bytes) needs no second copy of a long record.
    w.ascii(ID_PREFIX);
    w.ascii('{"domain":');
    writeString(w, DOMAIN);
    w.ascii(',"payload":{');
    member(w, 'chainTip', true); write(w, get(rec, 'chainTip'));
    member(w, 'publicKey'); write(w, get(sig, 'publicKey'));
    member(w, 'session'); write(w, session);
    if (identity) { member(w, 'signerIdentity'); write(w, identity); }
    member(w, 'stepCount'); write(w, get(rec, 'stepCount'));
    member(w, 'steps');
    w.room(steps.length);
    w.buf.set(steps, w.n);
    w.n += steps.length;
    member(w, 'version'); write(w, get(rec, 'version'));
    w.ascii('},"timestamp":');
    write(w, get(session, 'endedAt'));
    w.ascii(',"v":1}');
    const idInput = w.bytes();
    const signed = idInput.subarray(ID_PREFIX.length);

    const count = get(rec, 'stepCount').lit;
    if (Number(count) !== walk.n) {
      return refuse('STEP_COUNT_MISMATCH', 'stepCount is ' + count + ', the record has ' + walk.n + ' steps');
    }
    const tip = walk.n ? walk.lastHash : EMPTY_TIP;
    const chainTip = get(rec, 'chainTip');
    if (chainTip !== tip) return refuse('TIP_MISMATCH', 'chainTip is ' + chainTip + ', the chain ends at ' + tip);

    // §7 step 7: the key first (our own arithmetic), then the signature.
    const spki = lb.unhex(get(sig, 'publicKey'));
    const pub = spki.subarray(12);
    const sigBytes = lb.unhex(get(sig, 'value'));
    const weak = lb.ed25519.weakKey(pub);
    if (weak) return refuse('SIGNATURE_INVALID', weak);
    if (!lb.ed25519.scalarCanonical(sigBytes)) {
      return refuse('SIGNATURE_INVALID', "the signature's S is not below the group order");
    }
    if (!(await lb.ed25519.hasEd25519())) {
      return refuse('NO_ED25519', 'this browser has no Ed25519 in WebCrypto: no verdict (this is not a pass)');
    }
    let good;
    try {
      good = await lb.ed25519.verify(pub, sigBytes, signed);
    } catch (e) {
      return refuse('SIGNATURE_INVALID', 'the browser refused the key or signature: ' + e.message);
    }
    if (!good) return refuse('SIGNATURE_INVALID', 'the Ed25519 signature does not verify over the signed bytes');

    // WebCrypto is there (the signature just verified with it): its digest
    // is the fastest over a long record.
    const recordId = lb.hex(new Uint8Array(await crypto.subtle.digest('SHA-256', idInput)));
    const v = {
      ok: true, code: null, detail: 'signature verifies',
      recordId, keyId: lb.sha256(spki), stepCount: walk.n,
      publicKey: pub, pinned: false,
    };
    for (const check of POLICY) {
      const r = check(v, opt);
      if (r) { v.ok = false; v.code = r.code; v.detail = r.detail; break; }
    }
    // Step 9 (docs/checkpoint.md): the server's checkpoints, and the level.
    if (v.ok) {
      const r = await lb.checkpoint.checkpoints(v, opt, get(session, 'id'), walk.hashes);
      if (r) { v.ok = false; v.code = r.code; v.detail = r.detail; }
    }
    // Kept for the page's own display; not part of the verdict's fields.
    v.record = rec;
    if (keep) v.steps = new Steps(keep === true ? get(rec, 'steps').items : null, bytes, walk.spans);
    if (walk.picked) v.picked = walk.picked;
    return v;
  }

  // logbookVerify(bytes, {pubkeys, checkpoints, checkpointKeys}) is the
  // page's stable entry point: the verdict with the fields of
  // `logbook-verify --json` — ok, code (null when accepted), detail, and
  // recordId, keyId, stepCount (null unless the signature verified), level
  // (local or server for an accepted record, else null) and checkpoints
  // (those that agreed). pubkeys are SPKI PEM texts; checkpoints are
  // signed notes (text or bytes); checkpointKeys SPKI PEM texts or note
  // verifier keys. One that cannot be read gives ok false and code null,
  // as the command's usage error does.
  async function logbookVerify(bytes, options) {
    const full = await check(bytes, options);
    return {
      ok: full.ok, code: full.code, detail: full.detail, recordId: full.recordId, keyId: full.keyId, stepCount: full.stepCount,
      level: full.ok ? full.level : null, checkpoints: full.ok ? full.checkpoints : [],
    };
  }

  // check is logbookVerify with the parsed record and signer kept, for the
  // page's display; with keep, its steps too (true: in the record's tree;
  // 'lazy': read again from the bytes when asked for, see Steps). pick,
  // if given, is called with each parsed step of a well-shaped record
  // during the check's one reading, its results kept in v.picked: the
  // page's review takes what it needs from the steps so (js/review.js
  // stepOf) without reading 100,000 steps a second time.
  async function check(bytes, options, keep = false, pick = null) {
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    if (!(bytes instanceof Uint8Array)) return usage('bytes must be a Uint8Array');
    const opt = { pinned: [], checkpoints: [], cpKeys: [] };
    const pubkeys = (options && options.pubkeys) || [];
    const notes = (options && options.checkpoints) || [];
    const cpKeys = (options && options.checkpointKeys) || [];
    if (notes.length && !cpKeys.length) return usage('checkpoints need at least one checkpoint key to verify them under');
    for (let i = 0; i < cpKeys.length; i++) {
      try {
        const k = lb.checkpoint.readKey(cpKeys[i]);
        const weak = lb.ed25519.weakKey(k.pub);
        if (weak) throw new Error(weak + '; under it any checkpoint would verify');
        opt.cpKeys.push(k);
      } catch (e) {
        return usage('checkpointKeys[' + i + ']: ' + e.message);
      }
    }
    for (const n of notes) opt.checkpoints.push(typeof n === 'string' ? new TextEncoder().encode(n) : new Uint8Array(n));
    for (let i = 0; i < pubkeys.length; i++) {
      try {
        opt.pinned.push(readPublicKeyPEM(String(pubkeys[i])));
      } catch (e) {
        return usage('pubkeys[' + i + ']: ' + e.message);
      }
    }
    const managed = !!(options && options.requireManaged);
    const attested = !!(options && options.requireAttested);
    let v;
    try {
      v = await verifyRecord(bytes, opt, managed || attested ? true : keep, pick);
    } catch (e) {
      // A defect, not a verdict: refuse rather than pass, and say so.
      return usage('internal error: ' + (e && e.message));
    }
    if (v.ok && managed) {
      const r = requireManaged(v);
      if (r) { v.ok = false; v.code = r.code; v.detail = r.detail; v.level = null; }
    }
    if (v.ok && attested) {
      const r = requireAttested(v);
      if (r) { v.ok = false; v.code = r.code; v.detail = r.detail; v.level = null; }
    }
    if (v.ok) v.detail += opt.pinned.length ? '; signer pinned' : '; signer not pinned: integrity only, not authorship';
    return v;
  }

  // requireManaged is logbook-verify --require-managed (internal/verdict,
  // managed.go), after step 9: the server's logbook.hooks note, among the
  // session's first two steps, must say the hooks were managed.
  function requireManaged(v) {
    const no = (detail) => ({ code: 'HOOKS_NOT_MANAGED', detail });
    if (v.level === 'local') return no("level local: only a server's checkpoint can show where the hooks came from");
    const steps = get(v.record, 'steps');
    const items = (steps && steps.items) || [];
    for (let i = 0; i < items.length; i++) {
      const d = get(items[i], 'data');
      if (!d || d.t !== lb.json.K.OBJ || get(d, 'event') !== 'logbook.hooks') continue;
      if (i > 1) return no("the first logbook.hooks note is not among the session's first two steps");
      if (get(d, 'source') !== 'managed') {
        const why = get(d, 'reason');
        return no('the server found the hooks not managed: ' + (typeof why === 'string' ? why : ''));
      }
      return null;
    }
    return no('no logbook.hooks note: the server was not run with --managed-settings, or the session began before it was');
  }

  // requireAttested is logbook-verify --require-attested (internal/verdict,
  // attested.go), after --require-managed: at level server or logged,
  // every event step (not a gate step, not a logbook. note) carries a
  // logbook.actor attested by a credential or an OIDC token
  // (internal/fleet's ActorOf), all naming one developer.
  function requireAttested(v) {
    const no = (detail) => ({ code: 'ACTOR_UNATTESTED', detail });
    if (v.level === 'local') return no("level local: only a server's checkpoint can show that a server wrote the actors");
    const steps = get(v.record, 'steps');
    const items = (steps && steps.items) || [];
    let owner = null, first = 0;
    for (let i = 0; i < items.length; i++) {
      const d = get(items[i], 'data');
      if (get(items[i], 'kind') === 'gate') continue;
      const ev = get(d, 'event');
      if (typeof ev === 'string' && ev.startsWith('logbook.')) continue;
      const a = actorOf(d);
      if (a === undefined) return no('step ' + i + ' names no actor: the server that recorded it had no fleet');
      if (typeof a === 'string') return no('step ' + i + ': ' + a);
      if (a.by === 'token') return no('step ' + i + " was sent with the server's shared token, which names nobody");
      const o = { tenant: a.tenant || '', subject: a.subject || '' };
      if (owner === null) { owner = o; first = i; }
      else if (o.tenant !== owner.tenant || o.subject !== owner.subject) {
        return { code: 'ACTOR_MISMATCH', detail: 'step ' + i + ' was sent by ' + o.subject + ' in ' + o.tenant + ', step ' + first + ' by ' + owner.subject + ' in ' + owner.tenant };
      }
    }
    if (owner === null) return no('no event step');
    return null;
  }

  // actorOf is internal/fleet's ActorOf: the attested identity of a
  // step's data (with the asserted user as .claimed), undefined when it
  // has no logbook.actor, a string saying why when the member is
  // malformed.
  function actorOf(d) {
    const v = get(d, 'logbook.actor');
    if (v === undefined) return undefined;
    const bad = 'logbook.actor is not an actor';
    if (!v || typeof v === 'string' || v.t !== lb.json.K.OBJ) return bad;
    let attested = null, claimed;
    for (let k = 0; k < v.keys.length; k++) {
      const id = v.vals[k];
      if (!id || typeof id === 'string' || id.t !== lb.json.K.OBJ) return bad;
      const o = {};
      for (let j = 0; j < id.keys.length; j++) {
        const key = id.keys[j], val = id.vals[j];
        if (typeof val !== 'string' || !['by', 'tenant', 'subject', 'credential', 'issuer', 'user'].includes(key)) return bad;
        o[key] = val;
      }
      if (o.by !== undefined && !['credential', 'oidc', 'token'].includes(o.by)) return bad;
      if (v.keys[k] === 'attested') {
        if (!o.by || o.user !== undefined) return bad;
        attested = o;
      } else if (v.keys[k] === 'asserted') {
        if (o.by !== undefined) return bad;
        claimed = o.user;
      } else return bad;
    }
    if (!attested) return bad;
    // A credential or an OIDC token names its developer (fleet's ActorOf).
    if (attested.by !== 'token' && (!attested.tenant || !attested.subject)) return bad;
    if (claimed !== undefined) attested = Object.assign({}, attested, { claimed });
    return attested;
  }

  function usage(detail) {
    return { ok: false, code: null, detail, recordId: null, keyId: null, stepCount: null, level: null, checkpoints: [] };
  }

  lb.CODES = Object.assign(lb.CODES || {}, CODES);
  lb.POLICY = POLICY;
  lb.check = check;
  lb.readPublicKeyPEM = readPublicKeyPEM;
  lb.actorOf = actorOf;
  globalThis.logbookVerify = logbookVerify;
})(globalThis.logbook = globalThis.logbook || {});
