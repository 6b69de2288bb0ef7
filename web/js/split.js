// The split check: a long record's steps checked in parts at once (Web
// Workers), each part read strictly, written canonically and hashed by
// verify.js's own code (checkChunk), the parts then joined in order by
// verify.js (splitRead): each part's first link against the part
// before, its first index against the steps before it. Where anything
// does not fit, the record is checked again whole, the one way, so a
// refusal (its code, its detail) is always the whole check's.
//
// Where the parts are cut needs no trust: every byte of the file is in
// one part, or is the ',' between two, and each part is read strictly in
// its place (the steps' array, at depth 2; the record with that array
// standing in for the steps): a text whose parts all read is the same
// JSON text, with the same tree, as the file read whole.
//
// This file is also the workers' script: loaded as a worker, it loads
// the checker's scripts and checks the parts it is sent.
(function (lb) {
  'use strict';
  const PREFIX = Array.from('{"steps":[', (c) => c.charCodeAt(0));
  const SUFFIX = Array.from(']}', (c) => c.charCodeAt(0));
  // A step in canonical form begins {"at":" (its first key in order): a
  // cut is made before one, after the ',' that ends the step before. The
  // bytes },{"at":" stand in a JSON text only between objects (a '"'
  // inside a string is escaped), mostly between steps.
  const CUT = Array.from('},{"at":"', (c) => c.charCodeAt(0));
  const WS = (c) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

  // quoteEnd returns the index of the '"' that closes the string opened
  // at i, or -1.
  function quoteEnd(b, i) {
    for (let j = i + 1; ;) {
      j = b.indexOf(0x22, j);
      if (j < 0) return -1;
      let k = j - 1;
      while (b[k] === 0x5c) k--;
      if ((j - k) % 2 === 1) return j; // an even run of backslashes before it
      j++;
    }
  }

  // quoteStart returns the index of the '"' that opens the string closed
  // at j, or -1.
  function quoteStart(b, j) {
    for (let i = j - 1; i >= 0;) {
      i = b.lastIndexOf(0x22, i);
      if (i < 0) return -1;
      let k = i - 1;
      while (k >= 0 && b[k] === 0x5c) k--;
      if ((i - k) % 2 === 1) return i;
      i--;
    }
    return -1;
  }

  // open returns the index of the '[' that opens the record's "steps",
  // reading from the start, or -1.
  function open(b) {
    let depth = 0;
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (c === 0x22) {
        const e = quoteEnd(b, i);
        if (e < 0) return -1;
        if (depth === 1 && e === i + 6 && b[i + 1] === 0x73 && b[i + 2] === 0x74 && b[i + 3] === 0x65 && b[i + 4] === 0x70 && b[i + 5] === 0x73) {
          let k = e + 1;
          while (WS(b[k])) k++;
          if (b[k] === 0x3a) {
            k++;
            while (WS(b[k])) k++;
            return b[k] === 0x5b ? k : -1;
          }
        }
        i = e;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) depth--;
    }
    return -1;
  }

  // close returns the index of the ']' that ends a member of the
  // record's object, reading back from the end, or -1.
  function close(b) {
    let depth = 0;
    for (let i = b.length - 1; i >= 0; i--) {
      const c = b[i];
      if (c === 0x22) {
        i = quoteStart(b, i);
        if (i < 0) return -1;
      } else if (c === 0x7d || c === 0x5d) {
        if (c === 0x5d && depth === 1) return i;
        depth++;
      } else if (c === 0x7b || c === 0x5b) depth--;
    }
    return -1;
  }

  // isCut says whether a cut can be made at i (the ',' of },{"at":").
  function isCut(b, i) {
    for (let k = 0; k < CUT.length; k++) if (b[i - 1 + k] !== CUT[k]) return false;
    return true;
  }

  // SHARES are the parts' shares of a record's steps, in order: large at
  // both ends, small in the middle (verify.js splitRead says why).
  const SHARES = [8, 6, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 6, 8].map((x) => x / 58);

  // find proposes where to cut a record's steps into parts of about the
  // given shares of its bytes (fractions, in order): {open, close, cuts}
  // (the '[' and ']' of the steps, the ',' between parts; fewer where
  // the steps are few), or null where it sees none. With head (a Head's
  // {open, cuts}), its cuts are the first ones, where they hold here.
  function find(b, shares, head = null) {
    const o = open(b);
    if (o < 0) return null;
    const c = close(b);
    if (c <= o) return null;
    const cuts = [];
    let last = o, sum = 0, k0 = 1;
    if (head) {
      if (head.open !== o) return null;
      for (const i of head.cuts) {
        if (i <= last || i >= c || !isCut(b, i)) return null;
        cuts.push(i);
        last = i;
      }
      for (let k = 0; k < cuts.length; k++) sum += shares[k];
      k0 = cuts.length + 1;
    }
    for (let k = k0; k < shares.length; k++) {
      sum += shares[k - 1];
      const target = o + Math.floor((c - o) * sum);
      let i = Math.max(target, last + 1);
      for (;;) {
        i = b.indexOf(0x2c, i);
        if (i < 0 || i >= c || isCut(b, i)) break;
        i++;
      }
      if (i < 0 || i >= c) {
        // None after the target: the nearest before it.
        for (i = target; ; i--) {
          i = b.lastIndexOf(0x2c, i);
          if (i <= last || isCut(b, i)) break;
        }
        if (i <= last) break;
      }
      cuts.push(i);
      last = i;
    }
    return cuts.length ? { open: o, close: c, cuts } : null;
  }

  // wrap copies b[from, to) into {"steps":[…]}: a part read in the place
  // it has in the record.
  function wrap(b, from, to) {
    const out = new Uint8Array(PREFIX.length + (to - from) + SUFFIX.length);
    out.set(PREFIX);
    out.set(b.subarray(from, to), PREFIX.length);
    out.set(SUFFIX, PREFIX.length + (to - from));
    return out;
  }

  // Head sends the first parts of a record whose bytes are still coming
  // (the console's run page reads its download into bytes as it comes,
  // run.js: arrived(n) says bytes[0, n) are in) to the pool's workers,
  // each as soon as its bytes are in: the workers check while the rest
  // downloads. The cuts are made as find makes them, with the end of the
  // steps taken to be near the end of the bytes; splitRead (verify.js)
  // takes the parts up where its bytes are these and its cuts hold on
  // the whole record (find, with head): nothing of it is taken on trust.
  class Head {
    constructor(pool, bytes) {
      this.pool = pool;
      this.bytes = bytes;
      this.n = 0;
      this.open = -1;
      this.cuts = [];
      this.runs = []; // each part's pool.run, with its size
      this.inHand = 0;
      this.stopped = false;
    }

    arrived(n) {
      this.n = n;
      if (this.stopped) return;
      if (this.open < 0) {
        this.open = open(this.bytes.subarray(0, n));
        if (this.open < 0) {
          if (n > 1 << 16) this.stop(); // not a sealed record's head: no parts early
          return;
        }
      }
      this.more();
    }

    // more sends the next parts whose bytes are in, while each worker
    // has fewer than two in hand (splitRead's rule).
    more() {
      // b: what is in (a search must not run on into the zeros after).
      const b = this.bytes.subarray(0, this.n), o = this.open, c = this.bytes.length - 2;
      while (!this.stopped && this.inHand < 2 * this.pool.size && this.cuts.length < SHARES.length - 1) {
        const k = this.cuts.length, last = k ? this.cuts[k - 1] : o;
        let sum = 0;
        for (let j = 0; j <= k; j++) sum += SHARES[j];
        let i = Math.max(o + Math.floor((c - o) * sum), last + 1);
        if (i + CUT.length > b.length) return;
        for (;;) {
          i = b.indexOf(0x2c, i);
          if (i < 0 || i + CUT.length > b.length) return; // not in yet
          if (isCut(b, i)) break;
          i++;
        }
        this.cuts.push(i);
        const t = { wrapped: wrap(b, last + 1, i), first: k === 0, want: [], pick: true };
        const size = t.wrapped.length;
        this.inHand++;
        const run = this.pool.run(t);
        this.runs.push({ run, size });
        run.then(() => { this.inHand--; this.more(); });
      }
    }

    // stop sends no more parts (those sent are answered all the same).
    stop() {
      this.stopped = true;
      if (this.pool.head === this) this.pool.head = null;
    }
  }

  const ROOM = 1 << 16;

  // download reads a response's body of total bytes (its Content-Length)
  // into one array as it comes, the pool's workers checking its first
  // parts meanwhile (Head); a body longer or shorter than it said is
  // read whole all the same, and its parts are not taken up.
  async function download(body, total, pool) {
    // Room around the record: the signed bytes are made in place there
    // (verify.js startEarly), not in a copy of the record.
    const bytes = new Uint8Array(new ArrayBuffer(total + 2 * ROOM), ROOM, total);
    const head = new Head(pool, bytes);
    pool.head = head;
    const reader = body.getReader();
    let n = 0, extra = null;
    for (;;) {
      let done, value;
      try {
        ({ done, value } = await reader.read());
      } catch (e) {
        head.stop(); // a download that failed: no more parts of it
        throw e;
      }
      if (done) break;
      if (extra || n + value.length > total) {
        head.stop();
        extra = extra || [bytes.subarray(0, n)];
        extra.push(value);
        continue;
      }
      bytes.set(value, n);
      n += value.length;
      head.arrived(n);
    }
    if (extra) {
      const out = new Uint8Array(extra.reduce((x, p) => x + p.length, 0));
      let at = 0;
      for (const p of extra) { out.set(p, at); at += p.length; }
      return out;
    }
    if (n < total) { head.stop(); return bytes.slice(0, n); }
    return bytes;
  }

  // Workers is a pool of n workers running this script; run(task)
  // resolves to checkChunk's answer, or null where a worker failed. A
  // worker sends the review's fields of its steps (picked) as it goes, a
  // batch at a time, as JSON text: a string is copied across at little
  // cost, where a structured clone of 100,000 small objects cost the
  // worker and this thread about as much as reading the steps; the page
  // reads the text while it waits on the worker's last parts, or after
  // the verdict is shown (pickedJSON, verify.js), each step's fields an
  // array (review.js pack, unpack).
  class Workers {
    constructor(url, n) {
      this.size = n;
      this.minBytes = 1 << 20; // below a megabyte, one check is quicker than starting parts
      this.ws = [];
      this.waiting = new Map();
      this.id = 0;
      this.trouble = null; // why a worker was given up, if one was
      for (let i = 0; i < n; i++) {
        const w = new Worker(url);
        w.busy = 0;
        w.onmessage = (e) => {
          const m = e.data;
          if (!message(m)) { this.fail(w, 'a worker answered what is not an answer'); return; }
          const t = this.waiting.get(m.id);
          if (!t || t.w !== w) return; // a part no longer waited for
          if (typeof m.picks === 'string') { t.batches.push(m.picks); return; }
          if (m.r && m.r.picked) { m.r.pickedJSON = t.batches.concat([m.r.picked]); m.r.picked = null; }
          this.done(m.id, m.r);
        };
        // A worker that failed (its script did not load, or threw, or a
        // message could not be read) takes no more parts: its parts are
        // answered null, and checked on the page's thread.
        w.onerror = (e) => { e.preventDefault(); this.fail(w, 'a worker failed'); };
        w.onmessageerror = () => this.fail(w, 'a worker\'s answer could not be read');
        this.ws.push(w);
      }
    }

    done(id, r) {
      const t = this.waiting.get(id);
      if (!t) return;
      this.waiting.delete(id);
      t.w.busy--;
      t.resolve(r);
    }

    // fail gives a worker up: it is stopped, and each part it holds is
    // answered null.
    fail(w, why) {
      if (!w.failed) {
        w.failed = true;
        this.trouble = this.trouble || why;
        try { w.terminate(); } catch { /* gone already */ }
      }
      for (const [id, t] of this.waiting) if (t.w === w) this.done(id, null);
    }

    // stop gives up every worker that holds a part: splitRead calls it
    // where they have not answered in the time the page's thread says is
    // ample (a worker that died without an error event, or is stuck).
    stop(why) {
      for (const t of [...this.waiting.values()]) this.fail(t.w, why);
    }

    run(task) {
      return new Promise((resolve) => {
        const ok = this.ws.filter((x) => !x.failed);
        if (!ok.length) { resolve(null); return; }
        const id = ++this.id;
        let w = ok[0];
        for (const x of ok) if (x.busy < w.busy) w = x; // the one with the fewest parts in hand
        w.busy++;
        this.waiting.set(id, { w, resolve, batches: [] });
        try {
          w.postMessage(Object.assign({ id }, task), [task.wrapped.buffer]);
        } catch {
          this.fail(w, 'a part could not be sent to a worker');
        }
      });
    }
  }

  // message says whether m has the shape of a worker's message: a batch
  // of picked fields ({id, picks}), or a part's answer ({id, r}: null, a
  // refusal {ok: false}, or what checkChunk returns, its picked fields as
  // JSON text). Anything else is a worker gone wrong, not an answer.
  function message(m) {
    if (!m || typeof m !== 'object' || !Number.isSafeInteger(m.id)) return false;
    if ('picks' in m) return typeof m.picks === 'string';
    const r = m.r;
    if (r === null) return true;
    if (!r || typeof r !== 'object') return false;
    if (r.ok === false) return true;
    const int = (x) => Number.isSafeInteger(x) && x >= 0;
    return r.ok === true && int(r.base) && int(r.n) && r.n > 0 && typeof r.same === 'boolean'
      && (r.canon === null || r.canon instanceof Uint8Array)
      && r.spans instanceof Float64Array && r.spans.length === 2 * r.n
      && typeof r.lastHash === 'string' && (r.firstPrev === null || typeof r.firstPrev === 'string')
      && Array.isArray(r.hashes) && r.hashes.every((h) => Array.isArray(h) && h.length === 2 && int(h[0]) && typeof h[1] === 'string')
      && (r.picked === null || r.picked === undefined || typeof r.picked === 'string');
  }

  // inProcess is a pool that checks its parts on this thread, one after
  // another: the same answers as workers', for tests (and where no worker
  // can start).
  function inProcess(n, minBytes = 0) {
    return {
      size: n, minBytes, run: async (t) => {
        const r = lb.checkChunk(t.wrapped, t.first, t.want, t.pick);
        if (r.picked) { r.pickedJSON = [lb.review.packJSON(r.picked)]; r.picked = null; }
        return r;
      },
    };
  }

  // nextTask resolves in a later task: what waits in the event loop (a
  // worker's answer) runs first. A message to oneself: a timer may wait
  // 4 ms.
  const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
  const waiting = [];
  if (channel) channel.port1.onmessage = () => waiting.shift()();
  function nextTask() {
    return new Promise((resolve) => {
      if (!channel) { setTimeout(resolve, 0); return; }
      waiting.push(resolve);
      channel.port2.postMessage(0);
    });
  }

  lb.split = { SHARES, find, wrap, Head, download, Workers, inProcess, nextTask, message };

  // Loaded as a worker: the checker's scripts, then a part per message.
  if (typeof document === 'undefined' && typeof importScripts === 'function' && typeof postMessage === 'function') {
    importScripts('sha256.js', 'strictjson.js', 'jcs.js', 'shape.js', 'codes.js', 'verify.js', 'review.js');
    globalThis.onmessage = (e) => {
      const t = e.data;
      let r = null;
      try {
        r = lb.checkChunk(t.wrapped, t.first, t.want, t.pick, (picks) => postMessage({ id: t.id, picks: lb.review.packJSON(picks) }));
        if (r.picked) r.picked = lb.review.packJSON(r.picked);
      } catch {
        r = null; // a defect: the page checks the record whole instead
      }
      postMessage({ id: t.id, r }, r && r.ok ? (r.canon ? [r.canon.buffer, r.spans.buffer] : [r.spans.buffer]) : []);
    };
  }
})(globalThis.logbook = globalThis.logbook || {});
