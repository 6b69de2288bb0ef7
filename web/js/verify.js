// The verification order of spec §7, and window.logbookVerify: the same
// verdict, with the same fields, as `logbook-verify --json`.
(function (lb) {
  'use strict';
  const { K, get, parse, JsonError, NUL } = lb.json;
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

  const BYTE = (c) => new Uint8Array([c]);

  // StepWalker checks the steps one at a time as the reader hands them over
  // (spec §7 steps 2-4) and keeps the first failure of each kind, so that
  // the verdict follows the spec's order although the checks run in one
  // pass. It writes each step's canonical bytes once, into the steps array
  // of the signed bytes, and takes the step's hash over those bytes without
  // its "hash" member. A step the reader found in canonical form as it
  // stands (as a sealed record's are) is not written: its own bytes in
  // src are its canonical bytes, and while every step so far is such a
  // step, one ',' after the one before, the steps array is src's own
  // bytes from the first step to the last (tight), and nothing is copied.
  class StepWalker {
    constructor(size, want, src) {
      this.want = want; // step indices whose stated hash step 9 needs
      this.hashes = new Map();
      this.size = size;
      this.src = src; // the bytes read
      this.w = null; // the canonical steps array, once it is not src's own bytes
      this.tight = true;
      this.firstFrom = -1; // while tight: the steps' bytes in src
      this.lastTo = -1;
      this.h = new lb.Sha256();
      this.n = 0;
      this.shape = null;
      this.order = null;
      this.chain = null;
      this.last = new lb.Sha256(); // the previous step's recomputed hash, in last.h
      this.spans = null; // with keep 'lazy', each step's first and last byte (+1) in the file
      this.pick = null; // with a pick, what it returns for each step, in picked
      this.picked = null;
      this.base = 0; // the index of the first step it is given (a part's, split.js)
      this.firstPrev = null; // with base > 0, that step's prev, for the part before to match
    }

    // lastHash is the last step's recomputed hash, as hex.
    get lastHash() {
      return this.n ? lb.hex(wordBytes(this.last.h)) : null;
    }

    step(st, i, from, to, hashAt = -1, hashEnd = -1) {
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
      if (this.want.has(i)) this.hashes.set(i, lb.shape.field(st, 'hash'));
      const seq = lb.shape.field(st, 'seq');
      if (!this.order && Number(seq.lit) !== i) this.order = refuse('STEP_OUT_OF_ORDER', 'steps[' + i + '].seq is ' + seq.lit);
      const h = this.h;
      h.reset();
      if (hashAt >= 0) {
        // Canonical as it stands: hashed in src, without its "hash" member
        // and one comma next to it, as below.
        const src = this.src, first = src[hashAt - 1] === 0x7b;
        h.update(src, from, first ? hashAt : hashAt - 1);
        h.update(src, first ? hashEnd + 1 : hashEnd, to);
        this.plain(i, from, to);
      } else {
        const w = this.writer();
        if (i > this.base) w.byte(0x2c);
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
        h.update(w.buf, start, cutFrom);
        h.update(w.buf, cutTo, w.n);
      }
      h.finish();
      if (!this.chain) {
        const prev = lb.shape.field(st, 'prev');
        if (i > 0 && i === this.base) this.firstPrev = prev; // the part before holds steps[i - 1]: the joining compares
        if (i === 0 && prev !== NUL) this.chain = refuse('CHAIN_BROKEN', 'steps[0].prev is not null');
        else if (i > 0 && i !== this.base && !this.last.is(prev)) {
          this.chain = refuse('CHAIN_BROKEN', 'steps[' + i + '].prev is not the hash of steps[' + (i - 1) + ']');
        } else if (!h.is(lb.shape.field(st, 'hash'))) this.chain = refuse('CHAIN_BROKEN', 'steps[' + i + '].hash does not recompute');
      }
      this.last.h.set(h.h);
    }

    // plain takes steps[i], src[from, to), canonical as it stands.
    plain(i, from, to) {
      if (this.tight) {
        if (this.lastTo < 0) { this.firstFrom = from; this.lastTo = to; return; }
        if (from === this.lastTo + 1 && this.src[this.lastTo] === 0x2c) { this.lastTo = to; return; }
      }
      const w = this.writer();
      if (i > this.base) w.byte(0x2c);
      w.room(to - from);
      w.buf.set(this.src.subarray(from, to), w.n);
      w.n += to - from;
    }

    // writer returns the steps array being written, made on first use
    // from the steps taken as they stand so far.
    writer() {
      if (this.w) return this.w;
      this.tight = false;
      this.w = new Writer(this.size);
      this.w.byte(0x5b);
      if (this.lastTo >= 0) {
        this.w.room(this.lastTo - this.firstFrom);
        this.w.buf.set(this.src.subarray(this.firstFrom, this.lastTo), 1);
        this.w.n += this.lastTo - this.firstFrom;
      }
      return this.w;
    }

    // steps returns the canonical steps array's contents (between its
    // brackets): src's own bytes while tight.
    steps() {
      if (this.tight) return this.lastTo < 0 ? new Uint8Array(0) : this.src.subarray(this.firstFrom, this.lastTo);
      return this.w.bytes().subarray(1);
    }

    // parts returns the canonical steps array, in pieces to be joined.
    parts() {
      return [BYTE(0x5b), this.steps(), BYTE(0x5d)];
    }
  }

  // signedInput returns ID_PREFIX ‖ the signed bytes (§6), canonical:
  // {"domain":…,"payload":{"chainTip","publicKey","session",
  // "signerIdentity"?,"stepCount","steps","version"},"timestamp":endedAt,
  // "v":1}, with steps, the canonical steps array, given in pieces. The
  // record id's prefix goes first, so that sha256(prefix ‖ signed bytes)
  // needs no second copy of a long record.
  function signedInput(rec, steps) {
    const { head, tail } = signedAround(rec);
    const out = new Uint8Array(head.length + steps.reduce((n, p) => n + p.length, 0) + tail.length);
    out.set(head);
    let n = head.length;
    for (const p of steps) { out.set(p, n); n += p.length; }
    out.set(tail, n);
    return out;
  }

  // signedAround returns what signedInput puts before the steps array
  // (head, ID_PREFIX first) and after it (tail).
  function signedAround(rec) {
    const session = get(rec, 'session'), sig = get(rec, 'signature'), identity = get(rec, 'signerIdentity');
    const w = new Writer(4096);
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
    const head = w.bytes().slice();
    const t = new Writer(256);
    member(t, 'version'); write(t, get(rec, 'version'));
    t.ascii('},"timestamp":');
    write(t, get(session, 'endedAt'));
    t.ascii(',"v":1}');
    return { head, tail: t.bytes() };
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
  async function verifyRecord(bytes, opt, keep, pick, pool) {
    const want = lb.checkpoint.wanted(opt.checkpoints);
    // With a pool (split.js), a long record's steps are checked in parts
    // at once; a record they do not all pass, or that the parts' verdict
    // refuses, is read again here, whole: a refusal is the whole check's.
    const split = pool && keep !== true && (!pick || (lb.review && pick === lb.review.stepOf)) && bytes.length >= pool.minBytes
      ? await splitRead(bytes, want, pool, !!pick, keep === 'lazy') : null;
    if (pool && pool.head) pool.head.stop(); // a head (split.js) not taken up sends no more parts
    if (split) {
      const v = await judge(bytes, opt, keep, pick, want, split);
      if (v.ok) return v;
    }
    return judge(bytes, opt, keep, pick, want, null);
  }

  async function judge(bytes, opt, keep, pick, want, split) {
    let rec, walk;
    if (split) ({ rec, walk } = split);
    else {
      walk = new StepWalker(bytes.length + 64, want, bytes);
      if (keep === 'lazy') walk.spans = [];
      if (pick) { walk.pick = pick; walk.picked = []; }
      try {
        rec = parse(bytes, MAX_DEPTH, { key: 'steps', each: (st, i, from, to, hashAt, hashEnd) => walk.step(st, i, from, to, hashAt, hashEnd), keep: keep === true });
      } catch (e) {
        if (e instanceof JsonError) return refuse('NOT_JSON', e.message);
        if (e instanceof RangeError) return refuse('NOT_JSON', 'too large or too deep for this browser: ' + e.message);
        throw e;
      }
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

    const session = get(rec, 'session'), sig = get(rec, 'signature');
    // A split reading may have started the signature's check and the
    // record id's digest early, over the file's own steps, where those
    // were found canonical (walk.early, splitRead).
    const early = walk.early || null;
    const idInput = early ? null : signedInput(rec, walk.parts());

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
    // WebCrypto is there: its digest is the fastest over a long record.
    // It is started with the signature's check; the record id is taken
    // only once the signature verifies.
    const digest = early ? early.digest : crypto.subtle.digest('SHA-256', idInput);
    digest.catch(() => {});
    let good;
    try {
      good = await (early ? early.verified : lb.ed25519.verify(pub, sigBytes, idInput.subarray(ID_PREFIX.length)));
    } catch (e) {
      return refuse('SIGNATURE_INVALID', 'the browser refused the key or signature: ' + e.message);
    }
    if (!good) return refuse('SIGNATURE_INVALID', 'the Ed25519 signature does not verify over the signed bytes');

    const recordId = lb.hex(new Uint8Array(await digest));
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
    if (typeof walk.picked === 'function') {
      const read = walk.picked;
      Object.defineProperty(v, 'picked', { configurable: true, enumerable: true, get() {
        const p = read();
        Object.defineProperty(v, 'picked', { value: p, enumerable: true });
        return p;
      } });
    } else if (walk.picked) v.picked = walk.picked;
    if (split) v.split = split.parts; // how many parts the steps were checked in
    if (split && split.fallback) v.fallback = split.fallback; // why this thread read a worker's parts
    return v;
  }

  const PICK_BATCH = 2048;

  // checkChunk checks a part of a record's steps for the split check
  // (split.js) with the whole check's own walker: wrapped is the part's
  // bytes as {"steps":[…]}, first whether it begins the record (else its
  // first index is its first step's seq, which the joining confirms),
  // want the step indices whose stated hash is kept, pick whether the
  // review's fields are taken (review.js stepOf). It returns {ok: false}
  // for a part that does not pass whole, else what the joining needs:
  // {ok, base, n, canon (its steps' canonical bytes, comma-joined; null
  // where they are the part's own bytes, same), spans (each step's bytes
  // in wrapped), lastHash, firstPrev, hashes, picked}. flush, if given,
  // is handed the picked fields a batch at a time as the part is read
  // (picked then holds the last batch).
  function checkChunk(wrapped, first, want, pick, flush = null) {
    const walk = new StepWalker(wrapped.length + 64, new Set(want), wrapped);
    walk.spans = [];
    if (pick) { walk.pick = lb.review.stepOf; walk.picked = []; }
    let base = first ? 0 : -1, n = 0, rec;
    const each = (st, i, from, to, hashAt, hashEnd) => {
      if (i === 0 && !first) {
        const seq = lb.shape.field(st, 'seq');
        base = seq && seq.t === K.NUM && /^[1-9][0-9]{0,14}$/.test(seq.lit) ? Number(seq.lit) : -1;
        walk.base = base;
      }
      n = i + 1;
      if (base >= 0) walk.step(st, base + i, from, to, hashAt, hashEnd);
      if (flush && walk.picked && walk.picked.length === PICK_BATCH) {
        flush(walk.picked);
        walk.picked = [];
      }
    };
    try {
      rec = parse(wrapped, MAX_DEPTH, { key: 'steps', each, keep: false });
    } catch {
      return { ok: false };
    }
    if (base < 0 || !n || rec.keys.length !== 1 || walk.shape || walk.order || walk.chain || (!first && typeof walk.firstPrev !== 'string')) {
      return { ok: false };
    }
    // The part's own bytes are its canonical steps (same): the page
    // takes them from the file; else they are sent.
    const same = walk.tight && walk.firstFrom === 10 && walk.lastTo === wrapped.length - 2;
    return {
      ok: true, base, n, canon: same ? null : walk.steps().slice(), same, spans: Float64Array.from(walk.spans),
      lastHash: walk.lastHash, firstPrev: walk.firstPrev, hashes: [...walk.hashes], picked: walk.picked,
    };
  }

  // readPicked reads a worker's picked fields (JSON text, split.js).
  function readPicked(texts) {
    return [].concat(...texts.map(lb.review.unpackJSON));
  }

  // startEarly starts the signature's check and the record id's digest
  // over the signed bytes made of rec (the record around its steps) and
  // the file's own steps (bytes[f.open, f.close]), or returns null.
  // Where the steps' buffer has room around them (split.js download
  // leaves it), the signed bytes are made in place, not copied: the
  // bytes around the steps stand in for the signed input's while
  // WebCrypto takes its copy (which it does before it returns, as its
  // specification has it), and are put back at once, in the same task.
  function startEarly(rec, bytes, f) {
    if (!rec || !globalThis.crypto || !crypto.subtle) return null;
    try {
      const sig = get(rec, 'signature');
      const pub = lb.unhex(get(sig, 'publicKey')).subarray(12), sigBytes = lb.unhex(get(sig, 'value'));
      const { head, tail } = signedAround(rec);
      const from = bytes.byteOffset + f.open - head.length, to = bytes.byteOffset + f.close + 1 + tail.length;
      let early;
      if (bytes.buffer instanceof ArrayBuffer && from >= 0 && to <= bytes.buffer.byteLength) {
        const started = lb.ed25519.importKey(pub).then((key) => {
          const whole = new Uint8Array(bytes.buffer, from, to - from);
          const before = whole.slice(0, head.length), after = whole.slice(whole.length - tail.length);
          whole.set(head, 0);
          whole.set(tail, whole.length - tail.length);
          try {
            return { digest: crypto.subtle.digest('SHA-256', whole), verified: crypto.subtle.verify({ name: 'Ed25519' }, key, sigBytes, whole.subarray(ID_PREFIX.length)) };
          } finally {
            whole.set(before, 0);
            whole.set(after, whole.length - tail.length);
          }
        });
        early = { verified: started.then((x) => x.verified), digest: started.then((x) => x.digest) };
      } else {
        const idInput = signedInput(rec, [bytes.subarray(f.open, f.close + 1)]);
        early = { verified: lb.ed25519.verify(pub, sigBytes, idInput.subarray(ID_PREFIX.length)), digest: crypto.subtle.digest('SHA-256', idInput) };
      }
      early.verified.catch(() => {});
      early.digest.catch(() => {});
      return early;
    } catch {
      return null; // the record's shape is judged in order, later
    }
  }

  // splitRead reads a record in split.js's parts, checked at once by
  // pool's workers and, the last, on this thread, and joins them in
  // order: each part must pass whole, begin at the index after the part
  // before and link to its last hash, and the record around the steps
  // (read with one item, 0, in their place) must read too. It resolves to
  // {rec, walk, parts}, as the whole reading of the same record gives
  // them, or to null. Where every part's steps are in canonical form
  // already (as a sealed record's are), the file's own bytes are the
  // steps of the signed bytes: the signature's check and the record id's
  // digest (WebCrypto) start on them at once, and their answers are
  // taken in the check's order once the parts are joined (walk.early);
  // else they are made from the parts, after.
  const WAIT = 8;
  async function splitRead(bytes, want, pool, pick, lazy) {
    // More parts than threads, taken as each thread is free: the workers
    // from the front (two in hand each, so none waits on this thread),
    // this thread from the back, between its own reading the workers'
    // answers and picked fields. A thread the machine gives less time
    // takes fewer parts.
    // The parts are large at both ends, small in the middle (SHARES,
    // split.js): the last taken are the smallest, so the threads end
    // close together.
    // The parts the pool's workers were sent as these bytes downloaded
    // (split.js Head), where they were cut and checked as here.
    let head = pool.head && pool.head.bytes === bytes && pick && !want.size ? pool.head : null;
    if (head) head.stop();
    let f = lb.split.find(bytes, lb.split.SHARES, head);
    if (!f && head) {
      head = null;
      f = lb.split.find(bytes, lb.split.SHARES);
    }
    if (!f) return null;
    const bounds = [f.open].concat(f.cuts, [f.close]);
    const parts = bounds.length - 1;
    const task = (k) => ({ wrapped: lb.split.wrap(bytes, bounds[k] + 1, bounds[k + 1]), first: k === 0, want: [...want], pick });
    const results = new Array(parts).fill(null);
    const pending = [];
    let front = 0, back = parts - 1, answered = 0, out = 0; // out: the bytes of the parts sent, not yet answered
    const send = () => {
      const k = front++;
      let run, size;
      if (head && k < head.runs.length) ({ run, size } = head.runs[k]);
      else {
        const t = task(k);
        size = t.wrapped.length;
        run = pool.run(t);
      }
      out += size;
      pending.push(run.then((r) => {
        results[k] = r;
        answered++;
        out -= size;
        if (r && r.ok && front <= back) send();
        else if (r && !r.ok) front = back + 1; // it fails: the rest is not worth reading
        // null: a worker failed, and this thread reads its part (below).
      }));
    };
    while (head && front < head.runs.length && front < back) send();
    for (let i = 0; i < 2 * pool.size && front < back; i++) send();
    const env = new Uint8Array(f.open + 2 + bytes.length - f.close);
    env.set(bytes.subarray(0, f.open + 1));
    env[f.open + 1] = 0x30;
    env.set(bytes.subarray(f.close), f.open + 2);
    let rec = null, items = 0, at = -1, end = -1, zero = null;
    try {
      rec = parse(env, MAX_DEPTH, { key: 'steps', keep: false, each: (st, i, from, to) => { items++; at = from; end = to; zero = st; } });
    } catch {
      rec = null;
    }
    let early = null, ms = 0, read = 0;
    const own = (k) => {
      const t0 = performance.now();
      try {
        const t = task(k);
        results[k] = checkChunk(t.wrapped, t.first, t.want, t.pick);
        read += t.wrapped.length;
      } catch {
        results[k] = { ok: false }; // a defect: the record is read whole
      }
      ms += performance.now() - t0;
    };
    while (front <= back) {
      const k = back--;
      own(k);
      if (!results[k].ok) { front = back + 1; break; }
      if (k === parts - 1 && results[k].same) {
        // WebCrypto works on the calling thread, copying its input
        // first (Chromium: some 230 ms for a 50 MB record's two): the
        // workers are given parts for that while first, a third of the
        // bytes in hand, or they would wait on this thread to send more.
        while (front < back && out < 0.3 * bytes.length) send();
        early = startEarly(rec, bytes, f);
      }
      await lb.split.nextTask(); // the workers' answers, and more parts sent
    }
    // While a worker finishes, this thread reads the picked fields that
    // have come (else read after the verdict). A worker is not waited
    // for without end: where none has answered for WAIT times what this
    // thread took for the bytes still out (and a second more), the
    // workers that hold them are stopped (one may have died without an
    // error event, or be stuck), and this thread reads their parts.
    const done = pending.map(() => false);
    pending.forEach((p, i) => p.then(() => { done[i] = true; }));
    let heard = answered, since = performance.now();
    for (;;) {
      const open = pending.filter((_, i) => !done[i]);
      if (!open.length) break;
      if (answered !== heard) { heard = answered; since = performance.now(); }
      const left = 1000 + WAIT * (read ? ms / read : 1e-5) * out - (performance.now() - since);
      if (left <= 0 && pool.stop) { pool.stop('a worker did not answer in time'); await Promise.all(open); continue; }
      const r = results.find((x) => x && x.pickedJSON);
      if (!r) { await Promise.race(open.concat([new Promise((ok) => setTimeout(ok, Math.max(left, 0) + 1))])); continue; }
      r.picked = readPicked(r.pickedJSON);
      r.pickedJSON = null;
      await lb.split.nextTask();
    }
    for (let i = 0; i < pending.length; i++) await pending[i];
    // A part a worker did not answer (it failed, or was stopped): read
    // here. The page says so (v.fallback), quietly.
    if (results.some((r) => r && !r.ok)) return null;
    let fallback = null;
    for (let k = 0; k < parts; k++) {
      if (results[k] !== null) continue;
      fallback = (pool.trouble || 'a worker failed') + ': its parts were checked on the page\'s thread';
      own(k);
      if (!results[k].ok) return null;
    }
    if (!rec || items !== 1 || at !== f.open + 1 || end !== f.open + 2 || !zero || zero.t !== K.NUM || zero.lit !== '0') return null;
    let n = 0, lastHash = null;
    const hashes = new Map();
    for (let k = 0; k < parts; k++) {
      const r = results[k];
      if (!r || !r.ok || r.n < 1 || r.base !== n || (k > 0 && r.firstPrev !== lastHash)) return null;
      n += r.n;
      lastHash = r.lastHash;
      for (const [i, h] of r.hashes) hashes.set(i, h);
    }
    let spans = null;
    if (lazy) {
      spans = new Float64Array(2 * n);
      for (let k = 0, j = 0; k < parts; k++) {
        const s = results[k].spans, shift = bounds[k] + 1 - 10; // {"steps":[ is 10 bytes
        for (let x = 0; x < s.length; x++) spans[j++] = s[x] + shift;
      }
    }
    // The workers' picked fields come as JSON text, read when first asked
    // for (after the verdict is shown).
    const picked = pick && results.every((r) => r.picked || r.pickedJSON)
      ? () => [].concat(...results.map((r) => r.picked || readPicked(r.pickedJSON))) : null;
    const canon = [BYTE(0x5b)];
    for (let k = 0; k < parts; k++) {
      if (k) canon.push(BYTE(0x2c));
      canon.push(results[k].canon || bytes.subarray(bounds[k] + 1, bounds[k + 1]));
    }
    canon.push(BYTE(0x5d));
    get(rec, 'steps').length = n;
    const walk = { n, lastHash, hashes, spans, picked, shape: null, order: null, chain: null, parts: () => canon,
      early: results.every((r) => r.same) ? early : null };
    return { rec, walk, parts, fallback };
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
  // stepOf) without reading 100,000 steps a second time. pool, if given
  // (split.js's Workers or inProcess), checks a long record's steps in
  // parts at once, with keep false or 'lazy' and pick null or stepOf;
  // v.split then says in how many.
  async function check(bytes, options, keep = false, pick = null, pool = null) {
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
      v = await verifyRecord(bytes, opt, managed || attested ? true : keep, pick, pool);
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
  lb.checkChunk = checkChunk;
  lb.readPublicKeyPEM = readPublicKeyPEM;
  lb.actorOf = actorOf;
  globalThis.logbookVerify = logbookVerify;
})(globalThis.logbook = globalThis.logbook || {});
