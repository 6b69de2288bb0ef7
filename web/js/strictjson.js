// The strict JSON reader of spec §1, working on the file's bytes: exactly
// one JSON text (RFC 8259) with optional whitespace around it; UTF-8 with no
// byte-order mark and no invalid sequence; no \uD800-\uDFFF escape outside
// a valid pair; no key twice in an object; nesting at most 64 deep. Any
// failure throws JsonError, which the verifier reports as NOT_JSON.
//
// JSON.parse cannot do this job: it accepts duplicate keys, lone surrogate
// escapes and any nesting, and it reads numbers as doubles.
(function (lb) {
  'use strict';

  // Values. A string is a JavaScript string (most of a record is strings:
  // no wrapper object each). Every other value is a plain object {t, ...}:
  //   NUL, TRUE, FALSE            shared singletons
  //   NUM {lit}                   the literal exactly as written
  //   ARR {items}
  //   OBJ {keys, vals}            in document order
  // kind(v) gives any value's kind, K.STR for a string.
  const K = { NUL: 0, FALSE: 1, TRUE: 2, NUM: 3, STR: 4, ARR: 5, OBJ: 6 };
  const NUL = { t: K.NUL }, TRUE = { t: K.TRUE }, FALSE = { t: K.FALSE };

  class JsonError extends Error {
    constructor(offset, msg) {
      super('offset ' + offset + ': ' + msg);
      this.offset = offset;
    }
  }

  // On bytes already checked here. ignoreBOM keeps a U+FEFF that starts a
  // string: without it the decoder would drop it.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  const SP = 0x20, TAB = 0x09, LF = 0x0a, CR = 0x0d;

  // Bytes that may stand in a string as they are and end no ASCII run:
  // printable ASCII other than '"' and '\'.
  const PLAIN = new Uint8Array(256);
  for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === 0x22 || c === 0x5c ? 0 : 1;

  class Reader {
    // text is the file decoded as UTF-8 in one go, for slicing strings out
    // of; the reader itself judges the bytes. Before the first invalid byte
    // (where reading stops) the two agree, and a string's characters sit
    // at its byte offsets less shift: the bytes saved so far by multi-byte
    // characters, which stand only inside strings.
    constructor(bytes, maxDepth) {
      this.b = bytes;
      this.text = utf8.decode(bytes);
      this.shift = 0;
      this.i = 0;
      this.stream = null;
      this.maxDepth = maxDepth;
      // plain: whether what was read since it was last set is in canonical
      // form as it stands (spec §3: no whitespace, keys in order, no
      // escape, integers as written shortest); hashAt, hashEnd: the
      // "hash" member of the last object read at depth 3 (a record's
      // step). A streamed item hands both on (see parse).
      this.plain = true;
      this.hashAt = -1;
      this.hashEnd = -1;
    }
    fail(msg, at = this.i) { throw new JsonError(at, msg); }

    space() {
      const b = this.b;
      let i = this.i;
      while (i < b.length) {
        const c = b[i];
        if (c !== SP && c !== LF && c !== CR && c !== TAB) break;
        i++;
      }
      if (i !== this.i) this.plain = false;
      this.i = i;
    }

    // value reads one value; depth is the nesting of the enclosing container.
    value(depth) {
      const b = this.b;
      if (this.i >= b.length) this.fail('unexpected end of input');
      const c = b[this.i];
      switch (c) {
        case 0x7b: return this.object(depth + 1); // {
        case 0x5b: return this.array(depth + 1); // [
        case 0x22: return this.string(); // "
        case 0x74: return this.literal('true', TRUE);
        case 0x66: return this.literal('false', FALSE);
        case 0x6e: return this.literal('null', NUL);
      }
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
      if (c === 0xef && b[this.i + 1] === 0xbb && b[this.i + 2] === 0xbf) this.fail('byte order mark');
      this.fail('unexpected byte 0x' + (c < 16 ? '0' : '') + c.toString(16));
    }

    literal(word, node) {
      for (let k = 0; k < word.length; k++) {
        if (this.b[this.i + k] !== word.charCodeAt(k)) this.fail('invalid literal');
      }
      this.i += word.length;
      return node;
    }

    enter(depth) {
      if (depth > this.maxDepth) this.fail('nesting deeper than ' + this.maxDepth);
    }

    // array reads an array; each, when given, receives every item as it is
    // read, and the items are kept only when keep is set.
    array(depth, each = null, keep = true) {
      this.enter(depth);
      const b = this.b;
      const items = keep ? [] : null;
      let n = 0;
      const done = () => ({ t: K.ARR, items, length: n });
      this.i++;
      this.space();
      if (b[this.i] === 0x5d) { this.i++; return done(); }
      for (;;) {
        const from = this.i;
        if (each) { this.plain = true; this.hashAt = -1; }
        const item = this.value(depth);
        if (each) each(item, n, from, this.i, this.plain ? this.hashAt : -1, this.hashEnd);
        if (keep) items.push(item);
        n++;
        this.space();
        const c = b[this.i];
        if (c === 0x2c) { this.i++; this.space(); continue; }
        if (c === 0x5d) { this.i++; return done(); }
        this.fail(this.i >= b.length ? 'unterminated array' : "expected ',' or ']' in array");
      }
    }

    object(depth) {
      this.enter(depth);
      const b = this.b;
      const keys = [], vals = [];
      let seen = null; // a set once the object is large; a scan until then
      let sorted = true; // the keys so far rise strictly: none is there twice
      this.i++;
      this.space();
      if (b[this.i] === 0x7d) { this.i++; return { t: K.OBJ, keys, vals }; }
      for (;;) {
        if (b[this.i] !== 0x22) this.fail('expected a string key');
        const at = this.i;
        const key = this.string();
        // Keys compare after unescaping; with lone surrogates refused, equal
        // JS strings are equal Unicode texts. While they rise (a
        // canonical object's do) a key above the last is none of them.
        if (keys.length && !(sorted && keys[keys.length - 1] < key)) {
          sorted = false;
          this.plain = false; // not in canonical order
          if (seen === null && keys.length >= 16) seen = new Set(keys);
          if (seen === null ? keys.includes(key) : seen.has(key)) this.fail('duplicate key ' + JSON.stringify(key), at);
        }
        if (seen !== null) seen.add(key);
        this.space();
        if (b[this.i] !== 0x3a) this.fail("expected ':' after object key");
        this.i++;
        this.space();
        keys.push(key);
        const st = this.stream;
        if (depth === 1 && st && key === st.key && b[this.i] === 0x5b) {
          vals.push(this.array(depth + 1, st.each, st.keep));
        } else {
          vals.push(this.value(depth));
          if (depth === 3 && key === 'hash') { this.hashAt = at; this.hashEnd = this.i; }
        }
        this.space();
        const c = b[this.i];
        if (c === 0x2c) { this.i++; this.space(); continue; }
        if (c === 0x7d) { this.i++; return { t: K.OBJ, keys, vals }; }
        this.fail(this.i >= b.length ? 'unterminated object' : "expected ',' or '}' in object");
      }
    }

    number() {
      const b = this.b;
      const start = this.i;
      let i = this.i;
      if (b[i] === 0x2d) i++;
      if (b[i] === 0x30) i++;
      else if (b[i] >= 0x31 && b[i] <= 0x39) { while (b[i] >= 0x30 && b[i] <= 0x39) i++; }
      else { this.i = i; this.fail('invalid number'); }
      if (b[i] === 0x2e) {
        const d = ++i;
        while (b[i] >= 0x30 && b[i] <= 0x39) i++;
        if (i === d) { this.i = i; this.fail("invalid number: no digit after '.'"); }
      }
      if (b[i] === 0x65 || b[i] === 0x45) {
        i++;
        if (b[i] === 0x2b || b[i] === 0x2d) i++;
        const d = i;
        while (b[i] >= 0x30 && b[i] <= 0x39) i++;
        if (i === d) { this.i = i; this.fail('invalid number: no digit in exponent'); }
      }
      this.i = i;
      // Canonical as written: an integer of at most 15 digits, not -0
      // (the grammar has already refused leading zeros).
      if (i - start > 15 || (b[start] === 0x2d && b[start + 1] === 0x30)) this.plain = false;
      else for (let k = start; k < i; k++) if (b[k] === 0x2e || b[k] === 0x65 || b[k] === 0x45) { this.plain = false; break; }
      return { t: K.NUM, lit: this.text.slice(start - this.shift, i - this.shift) };
    }

    // string reads a string from its opening quote and returns its text.
    string() {
      const b = this.b;
      let i = ++this.i;
      const from = i - this.shift; // where it starts in text
      for (;;) {
        while (i < b.length && PLAIN[b[i]]) i++;
        if (i >= b.length) { this.i = i; this.fail('unterminated string'); }
        const c = b[i];
        if (c === 0x22) {
          this.i = i + 1;
          return this.text.slice(from, i - this.shift);
        }
        if (c === 0x5c) return this.escaped(from, i);
        if (c < 0x20) { this.i = i; this.fail('control character in string'); }
        if (c < 0x80) { i++; continue; } // DEL
        i = this.utf8Char(i);
      }
    }

    // escaped finishes a string that holds an escape at i; from is where
    // it starts in text.
    escaped(from, i) {
      const b = this.b;
      this.plain = false; // an escape: its canonical form may differ
      const parts = [];
      let run = from; // start (in text) of what is not yet in parts
      for (;;) {
        while (i < b.length && PLAIN[b[i]]) i++;
        if (i >= b.length) { this.i = i; this.fail('unterminated string'); }
        const c = b[i];
        if (c === 0x22) {
          parts.push(this.text.slice(run, i - this.shift));
          this.i = i + 1;
          return parts.join('');
        }
        if (c === 0x5c) {
          parts.push(this.text.slice(run, i - this.shift));
          const e = this.escape(i, parts);
          // The escape's bytes stand for fewer characters (or none): its
          // text is skipped, not copied.
          run = e - this.shift;
          i = e;
          continue;
        }
        if (c < 0x20) { this.i = i; this.fail('control character in string'); }
        if (c < 0x80) { i++; continue; }
        i = this.utf8Char(i);
      }
    }

    // escape reads the escape at i into parts and returns the index after it.
    escape(i, parts) {
      const b = this.b;
      if (i + 1 >= b.length) { this.i = i; this.fail('unterminated escape'); }
      const e = b[i + 1];
      switch (e) {
        case 0x22: parts.push('"'); return i + 2;
        case 0x5c: parts.push('\\'); return i + 2;
        case 0x2f: parts.push('/'); return i + 2;
        case 0x62: parts.push('\b'); return i + 2;
        case 0x66: parts.push('\f'); return i + 2;
        case 0x6e: parts.push('\n'); return i + 2;
        case 0x72: parts.push('\r'); return i + 2;
        case 0x74: parts.push('\t'); return i + 2;
        case 0x75: break; // u
        default: this.i = i; this.fail('invalid escape');
      }
      const u = hex4(b, i + 2);
      if (u < 0) { this.i = i + 2; this.fail('invalid \\u escape'); }
      i += 6;
      if (u < 0xd800 || u > 0xdfff) { parts.push(String.fromCharCode(u)); return i; }
      if (u >= 0xdc00) { this.i = i; this.fail('lone surrogate escape'); }
      // A high surrogate: a low surrogate escape must follow.
      if (b[i] === 0x5c && b[i + 1] === 0x75) {
        const lo = hex4(b, i + 2);
        if (lo < 0) { this.i = i + 2; this.fail('invalid \\u escape'); }
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          parts.push(String.fromCharCode(u, lo));
          return i + 6;
        }
      }
      this.i = i;
      this.fail('lone surrogate escape');
    }

    // utf8Char checks one multi-byte UTF-8 sequence at i (Unicode 15, table
    // 3-7: no overlong form, no surrogate, nothing above U+10FFFF) and
    // returns the index after it.
    utf8Char(i) {
      const b = this.b;
      const c = b[i];
      let n, lo = 0x80, hi = 0xbf;
      if (c >= 0xc2 && c <= 0xdf) n = 1;
      else if (c >= 0xe0 && c <= 0xef) { n = 2; if (c === 0xe0) lo = 0xa0; else if (c === 0xed) hi = 0x9f; }
      else if (c >= 0xf0 && c <= 0xf4) { n = 3; if (c === 0xf0) lo = 0x90; else if (c === 0xf4) hi = 0x8f; }
      else { this.i = i; this.fail('invalid UTF-8'); }
      const c1 = b[i + 1];
      if (!(c1 >= lo && c1 <= hi)) { this.i = i; this.fail('invalid UTF-8'); }
      for (let k = 2; k <= n; k++) {
        const ck = b[i + k];
        if (!(ck >= 0x80 && ck <= 0xbf)) { this.i = i; this.fail('invalid UTF-8'); }
      }
      // n+1 bytes make one UTF-16 unit, or two (a surrogate pair) for 4 bytes.
      this.shift += n === 3 ? 2 : n;
      return i + n + 1;
    }
  }

  function hex4(b, i) {
    let u = 0;
    for (let k = 0; k < 4; k++) {
      const c = b[i + k];
      let d;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else return -1; // also past the end (undefined)
      u = (u << 4) | d;
    }
    return u;
  }

  // parse reads exactly one JSON text from bytes (a Uint8Array) and returns
  // its tree; it throws JsonError for anything spec §1 refuses. With
  // stream = {key, each, keep}, the items of the array that is the member
  // named key of the top-level object go to each(item, index, from, to,
  // hashAt, hashEnd) (from and to: the item's bytes; hashAt, hashEnd: its
  // "hash" member's, hashAt -1 unless the item is in canonical form as it
  // stands, see Reader) as they are read, and are kept in the tree only
  // if keep is set: a record's steps are checked one at a time, and a
  // long record is never all in memory.
  // Reading goes on after each has seen an item, so a later syntax error
  // still throws.
  function parse(bytes, maxDepth, stream = null) {
    const r = new Reader(bytes, maxDepth);
    r.stream = stream;
    r.space();
    const v = r.value(0);
    r.space();
    if (r.i !== bytes.length) r.fail('data after the JSON text');
    return v;
  }

  const kind = (v) => (typeof v === 'string' ? K.STR : v.t);

  // get returns the member named key of an object node, or undefined.
  function get(obj, key) {
    if (!obj || obj.t !== K.OBJ) return undefined;
    const k = obj.keys.indexOf(key);
    return k < 0 ? undefined : obj.vals[k];
  }

  lb.json = { K, kind, parse, get, JsonError, NUL, TRUE, FALSE };
})(globalThis.logbook = globalThis.logbook || {});
