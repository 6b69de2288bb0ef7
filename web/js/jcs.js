// The canonical form of spec §3 (RFC 8785) for trees of strictjson.js,
// written as UTF-8 bytes: members sorted by key as UTF-16 code units (the
// order of JavaScript's own string comparison), no whitespace, integers in
// shortest form, strings with only '"', '\' and U+0000-U+001F escaped.
// A record holds no fractions (spec §2), so numbers here are integers
// within ±(2^53-1), which Number() reads exactly.
(function (lb) {
  'use strict';
  const K = lb.json.K;

  // Writer collects bytes in a buffer that doubles as it fills.
  class Writer {
    constructor(size = 1 << 16) {
      this.buf = new Uint8Array(size);
      this.n = 0;
    }

    room(k) {
      if (this.n + k <= this.buf.length) return;
      let size = this.buf.length * 2;
      while (size < this.n + k) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.buf.subarray(0, this.n));
      this.buf = next;
    }

    byte(c) {
      if (this.n === this.buf.length) this.room(1);
      this.buf[this.n++] = c;
    }

    // ascii writes a string known to hold only ASCII.
    ascii(s) {
      this.room(s.length);
      for (let i = 0; i < s.length; i++) this.buf[this.n++] = s.charCodeAt(i);
    }

    bytes() { return this.buf.subarray(0, this.n); }
  }

  const utf8 = new TextEncoder();
  const NEEDS_ESCAPE = /[\u0000-\u001f"\\]/;
  const SHORT = { 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0c: 'f', 0x0d: 'r', 0x22: '"', 0x5c: '\\' };
  const HEXDIGITS = '0123456789abcdef';

  // string writes s in canonical form: the quotes, the few escapes of §3,
  // and every other code point as its UTF-8 bytes.
  function writeString(w, s) {
    w.room(s.length * 6 + 2); // at most 6 bytes a unit (\u001f)
    const buf = w.buf;
    let n = w.n;
    buf[n++] = 0x22;
    if (s.length > 256 && !NEEDS_ESCAPE.test(s)) {
      // Nothing to escape: the browser's UTF-8 encoder writes it.
      n += utf8.encodeInto(s, buf.subarray(n)).written;
      buf[n++] = 0x22;
      w.n = n;
      return;
    }
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== 0x22 && c !== 0x5c) { buf[n++] = c; continue; }
        buf[n++] = 0x5c;
        const e = SHORT[c];
        if (e) { buf[n++] = e.charCodeAt(0); continue; }
        buf[n++] = 0x75; buf[n++] = 0x30; buf[n++] = 0x30; // u00
        buf[n++] = HEXDIGITS.charCodeAt(c >> 4); buf[n++] = HEXDIGITS.charCodeAt(c & 15);
      } else if (c < 0x800) {
        buf[n++] = 0xc0 | (c >> 6); buf[n++] = 0x80 | (c & 63);
      } else if (c >= 0xd800 && c <= 0xdbff) {
        // A pair (the reader refused lone surrogates): 4 bytes for the 2 units.
        c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
        buf[n++] = 0xf0 | (c >> 18); buf[n++] = 0x80 | ((c >> 12) & 63);
        buf[n++] = 0x80 | ((c >> 6) & 63); buf[n++] = 0x80 | (c & 63);
      } else {
        buf[n++] = 0xe0 | (c >> 12); buf[n++] = 0x80 | ((c >> 6) & 63); buf[n++] = 0x80 | (c & 63);
      }
    }
    buf[n++] = 0x22;
    w.n = n;
  }

  // IDENTITY is the order of keys already sorted (as a canonical record's
  // are): order hands it out rather than make an array per object, a
  // cost that showed in a 100,000-step record's check.
  let IDENTITY = [];

  // order returns the member indexes of obj in canonical key order; the
  // caller reads only the first obj.keys.length of them.
  function order(obj) {
    const keys = obj.keys;
    let sorted = true;
    for (let i = 1; i < keys.length; i++) if (!(keys[i - 1] < keys[i])) { sorted = false; break; }
    if (sorted) {
      if (IDENTITY.length < keys.length) IDENTITY = Array.from({ length: keys.length * 2 }, (_, i) => i);
      return IDENTITY;
    }
    const idx = keys.map((_, i) => i);
    idx.sort((x, y) => (keys[x] < keys[y] ? -1 : 1)); // keys are distinct
    return idx;
  }

  // write appends the canonical form of value v.
  function write(w, v) {
    if (typeof v === 'string') { writeString(w, v); return; }
    switch (v.t) {
      case K.NUL: w.ascii('null'); return;
      case K.TRUE: w.ascii('true'); return;
      case K.FALSE: w.ascii('false'); return;
      case K.NUM: w.ascii(String(Number(v.lit))); return; // -0 → "0"
      case K.ARR:
        w.byte(0x5b);
        for (let i = 0; i < v.items.length; i++) {
          if (i > 0) w.byte(0x2c);
          write(w, v.items[i]);
        }
        w.byte(0x5d);
        return;
      case K.OBJ: {
        w.byte(0x7b);
        const idx = order(v);
        for (let n = 0; n < v.keys.length; n++) {
          if (n > 0) w.byte(0x2c);
          writeString(w, v.keys[idx[n]]);
          w.byte(0x3a);
          write(w, v.vals[idx[n]]);
        }
        w.byte(0x7d);
      }
    }
  }

  // canonicalize returns the canonical UTF-8 bytes of value v.
  function canonicalize(v) {
    const w = new Writer(1024);
    write(w, v);
    return w.bytes().slice();
  }

  lb.jcs = { Writer, write, writeString, order, canonicalize };
})(globalThis.logbook = globalThis.logbook || {});
