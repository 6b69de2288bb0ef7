// SHA-256 (FIPS 180-4), synchronous and incremental. The page hashes every
// step of the chain (spec §5) and the record id (§6) with it: WebCrypto's
// digest is asynchronous (one promise per step) and is missing altogether
// outside a secure context (a page served over plain http), where the
// checker must still reach every verdict that needs no signature.
(function (lb) {
  'use strict';

  const K = new Int32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const W = new Int32Array(64);

  // Sha256 hashes bytes given in any number of update calls. It allocates
  // nothing after construction: the chain check hashes every step with
  // one, and typed arrays are costly to make in a browser.
  class Sha256 {
    constructor() {
      this.h = new Int32Array(8);
      this.block = new Uint8Array(64);
      this.reset();
    }

    reset() {
      this.h.set(IV);
      this.fill = 0; // bytes waiting in block
      this.length = 0; // total bytes hashed
      return this;
    }

    // update hashes bytes[from, to) (the whole array when from/to are omitted).
    update(bytes, from = 0, to = bytes.length) {
      this.length += to - from;
      const block = this.block;
      let i = from;
      if (this.fill > 0) {
        let f = this.fill;
        while (f < 64 && i < to) block[f++] = bytes[i++];
        this.fill = f;
        if (f < 64) return this;
        compress(this.h, block, 0);
        this.fill = 0;
      }
      for (; i + 64 <= to; i += 64) compress(this.h, bytes, i);
      let f = 0;
      while (i < to) block[f++] = bytes[i++];
      this.fill = f;
      return this;
    }

    // finish pads the message (FIPS 180-4 §5.1.1) and leaves the hash in h;
    // the object must be reset before reuse.
    finish() {
      const block = this.block, bits = this.length * 8;
      let f = this.fill;
      block[f++] = 0x80;
      if (f > 56) {
        block.fill(0, f);
        compress(this.h, block, 0);
        f = 0;
      }
      block.fill(0, f, 56);
      // The length in bits, big-endian, in the last 8 bytes (below 2^53).
      const hi = Math.floor(bits / 0x100000000);
      block[56] = hi >>> 24; block[57] = hi >>> 16; block[58] = hi >>> 8; block[59] = hi;
      block[60] = bits >>> 24; block[61] = bits >>> 16; block[62] = bits >>> 8; block[63] = bits;
      compress(this.h, block, 0);
    }

    // digest returns the 32-byte hash.
    digest() {
      this.finish();
      const out = new Uint8Array(32);
      for (let j = 0; j < 8; j++) {
        const v = this.h[j];
        out[4 * j] = v >>> 24; out[4 * j + 1] = v >>> 16; out[4 * j + 2] = v >>> 8; out[4 * j + 3] = v;
      }
      return out;
    }

    // is says whether s is the lowercase hex of the hash now in h (after
    // finish): the chain check compares every step's two hashes this way,
    // making no string of its own (a 64-character string a step showed in
    // the profile of a 100,000-step record).
    is(s) {
      if (typeof s !== 'string' || s.length !== 64) return false;
      for (let j = 0; j < 8; j++) {
        const v = this.h[j];
        for (let k = 0; k < 8; k++) {
          const c = s.charCodeAt(8 * j + k), want = HEXCODES[(v >>> (28 - 4 * k)) & 15];
          if (c !== want) return false;
        }
      }
      return true;
    }

    // hex returns the hash as lowercase hex.
    hex() {
      this.finish();
      let s = '';
      for (let j = 0; j < 8; j++) {
        const v = this.h[j];
        s += HEX[v >>> 24] + HEX[(v >>> 16) & 255] + HEX[(v >>> 8) & 255] + HEX[v & 255];
      }
      return s;
    }
  }

  function compress(h, b, at) {
    for (let t = 0; t < 16; t++) {
      const p = at + 4 * t;
      W[t] = (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
    }
    for (let t = 16; t < 64; t++) {
      const x = W[t - 15], y = W[t - 2];
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
    }
    let a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[t] + W[t]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & bb) ^ (a & c) ^ (bb & c);
      const t2 = (S0 + maj) | 0;
      hh = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = bb; bb = a; a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + bb) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + hh) | 0;
  }

  const HEXCODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
  const HEX = Array.from({ length: 256 }, (_, i) => (i < 16 ? '0' : '') + i.toString(16));

  // hex writes bytes as lowercase hex (spec §3: all hex in a record is lowercase).
  lb.hex = function (bytes) {
    let s = '';
    for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]];
    return s;
  };

  // unhex reads lowercase hex of even length (the shape check has vetted it).
  lb.unhex = function (s) {
    const out = new Uint8Array(s.length >> 1);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
    return out;
  };

  lb.Sha256 = Sha256;
  // sha256 returns the lowercase hex SHA-256 of bytes.
  lb.sha256 = (bytes) => new Sha256().update(bytes).hex();
})(globalThis.logbook = globalThis.logbook || {});
