// Ed25519 (RFC 8032) for the signature check of spec §7 step 7. The
// arithmetic here only judges the public key: a point off the curve, a
// non-canonical encoding or a point of small order is refused before any
// signature is looked at, because under such a key a forged signature can
// verify. The signature itself is verified by the browser (WebCrypto,
// "Ed25519"); where the browser has none, there is no verdict (NO_ED25519).
(function (lb) {
  'use strict';

  const P = (1n << 255n) - 19n;
  const L = (1n << 252n) + 27742317777372353535851937790883648493n; // the group order
  const mod = (a) => { const r = a % P; return r < 0n ? r + P : r; };

  function pow(b, e) {
    let r = 1n;
    b = mod(b);
    while (e > 0n) {
      if (e & 1n) r = (r * b) % P;
      b = (b * b) % P;
      e >>= 1n;
    }
    return r;
  }
  const inv = (a) => pow(a, P - 2n);
  const D = mod(-121665n * inv(121666n));
  const SQRT_M1 = pow(2n, (P - 1n) / 4n); // a square root of -1

  // littleEndian reads bytes as an unsigned little-endian integer.
  function littleEndian(bytes) {
    let n = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
    return n;
  }

  // decode returns the affine point (x, y) that the 32 bytes encode, or a
  // string saying why they encode none (RFC 8032 §5.1.3, strict: y must be
  // below p, and x = 0 may not carry the sign bit).
  function decode(pub) {
    if (pub.length !== 32) return 'public key is not 32 bytes';
    const sign = pub[31] >> 7;
    const y = littleEndian(pub) & ((1n << 255n) - 1n);
    if (y >= P) return 'public key is a non-canonical encoding (y ≥ 2^255-19)';
    const y2 = (y * y) % P;
    const u = mod(y2 - 1n), v = mod(D * y2 + 1n);
    // x = sqrt(u/v) = u v^3 (u v^7)^((p-5)/8), then fix by sqrt(-1) if needed.
    const v3 = (v * v % P) * v % P;
    let x = (u * v3 % P) * pow(u * (v3 * v3 % P * v % P), (P - 5n) / 8n) % P;
    const vx2 = v * (x * x % P) % P;
    if (vx2 !== u) {
      if (vx2 !== mod(-u)) return 'public key is not a point on the curve';
      x = x * SQRT_M1 % P;
    }
    if (x === 0n && sign === 1) return 'public key is a non-canonical encoding (x = 0 with the sign bit set)';
    if (Number(x & 1n) !== sign) x = P - x;
    return { x, y };
  }

  // double returns 2Q in extended coordinates (X:Y:Z:T), a = -1
  // (the dbl-2008-hwcd formulas).
  function double([X, Y, Z]) {
    const A = X * X % P, B = Y * Y % P, C = 2n * Z * Z % P;
    const Dd = mod(-A);
    const E = mod((X + Y) * (X + Y) - A - B), G = mod(Dd + B), F = mod(G - C), H = mod(Dd - B);
    return [E * F % P, G * H % P, F * G % P, E * H % P];
  }

  // weakKey returns why an Ed25519 public key must not be trusted to verify
  // anything, or "": not a curve point, a non-canonical encoding, or a point
  // of small order (8·A is the neutral element: one of the 8 torsion points).
  function weakKey(pub) {
    const pt = decode(pub);
    if (typeof pt === 'string') return pt;
    let q = [pt.x, pt.y, 1n, pt.x * pt.y % P];
    for (let k = 0; k < 3; k++) q = double(q);
    if (q[0] === 0n && q[1] === q[2]) return 'public key is a point of small order';
    return '';
  }

  // scalarCanonical: the signature's S (its last 32 bytes) is below the
  // group order, as RFC 8032 §5.1.7 requires.
  function scalarCanonical(sig) {
    return littleEndian(sig.subarray(32, 64)) < L;
  }

  // RFC 8032 §7.1, test 1: a known key, empty message and signature, to tell
  // whether the browser's Ed25519 works at all.
  const PROBE = {
    pub: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    sig: 'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  };
  let support; // a promise of true or false, made once

  function hasEd25519() {
    if (!support) {
      support = (async () => {
        try {
          const key = await importKey(lb.unhex(PROBE.pub));
          return await crypto.subtle.verify({ name: 'Ed25519' }, key, lb.unhex(PROBE.sig), new Uint8Array(0));
        } catch (e) {
          return false;
        }
      })();
    }
    return support;
  }

  function importKey(raw) {
    if (!globalThis.crypto || !crypto.subtle) throw new Error('no WebCrypto here (not a secure context)');
    return crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
  }

  // verify checks sig over msg under the 32-byte key pub with the
  // browser's Ed25519; callers have run weakKey and scalarCanonical.
  async function verify(pub, sig, msg) {
    const key = await importKey(pub);
    return crypto.subtle.verify({ name: 'Ed25519' }, key, sig, msg);
  }

  lb.ed25519 = { weakKey, scalarCanonical, hasEd25519, importKey, verify, decode };
})(globalThis.logbook = globalThis.logbook || {});
