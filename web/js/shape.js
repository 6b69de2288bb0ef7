// The shape of a record: value rules (spec §2) and the fields of §4,
// written out in code from the spec's tables (schema/record.schema.json
// says the same). Each check returns "" or a detail for SHAPE, naming the
// field by its JSON Pointer.
(function (lb) {
  'use strict';
  const { K, get } = lb.json;

  const MAX_SAFE = '9007199254740991'; // 2^53-1

  // numberProblem says why a number literal may not stand in a record
  // (§2: an integer literal within ±(2^53-1)), or returns "".
  function numberProblem(lit) {
    if (lit.length <= 15 && !/[.eE]/.test(lit)) return ''; // 15 digits (or 14 and '-') are within range
    if (/[.eE]/.test(lit)) return lit + ' is not an integer literal';
    // The reader's grammar leaves no leading zeros: length orders magnitude.
    const digits = lit[0] === '-' ? lit.slice(1) : lit;
    if (digits.length > MAX_SAFE.length || (digits.length === MAX_SAFE.length && digits > MAX_SAFE)) {
      return lit + ' is outside ±(2^53-1)';
    }
    return '';
  }

  function token(key) { return key.replace(/~/g, '~0').replace(/\//g, '~1'); }

  // badNumber returns the pointer and problem of the first number §2
  // refuses in v, or null. The pointer is built only on the way back from
  // a failure: a record of millions of values builds none.
  function badNumber(v, path) {
    const trail = [];
    const lit = findBad(v, trail);
    if (lit === null) return null;
    return path + trail.reverse().map((k) => '/' + token(String(k))).join('') + ': ' + numberProblem(lit);
  }

  // findBad returns the first refused literal under v and pushes the keys
  // and indexes leading to it onto trail (innermost first); else null.
  function findBad(v, trail) {
    if (typeof v === 'string') return null;
    switch (v.t) {
      case K.NUM:
        return numberProblem(v.lit) ? v.lit : null;
      case K.ARR:
        for (let i = 0; i < v.items.length; i++) {
          const t = v.items[i].t; // undefined for a string
          if (t !== K.NUM && t !== K.ARR && t !== K.OBJ) continue;
          const bad = findBad(v.items[i], trail);
          if (bad !== null) { trail.push(i); return bad; }
        }
        return null;
      case K.OBJ:
        for (let i = 0; i < v.vals.length; i++) {
          const t = v.vals[i].t;
          if (t !== K.NUM && t !== K.ARR && t !== K.OBJ) continue;
          const bad = findBad(v.vals[i], trail);
          if (bad !== null) { trail.push(v.keys[i]); return bad; }
        }
        return null;
    }
    return null;
  }

  const TIMESTAMP = /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$/;
  const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

  // isInstant: RFC 3339 UTC in the form of §4, naming a real calendar
  // instant (the day exists in its month, proleptic Gregorian; no leap
  // second, which the pattern already leaves out).
  function isInstant(s) {
    const m = TIMESTAMP.exec(s);
    if (!m) return false;
    const y = +m[1], mo = +m[2], d = +m[3];
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    return d <= (mo === 2 && leap ? 29 : DAYS[mo - 1]);
  }

  const HEX64 = /^[0-9a-f]{64}$/;
  const HEX = /^(?:[0-9a-f]{2})+$/;
  const SPKI_HEX = /^302a300506032b6570032100[0-9a-f]{64}$/;
  const SIG_HEX = /^[0-9a-f]{128}$/;
  const KINDS = new Set(['exec', 'edit', 'read', 'write', 'tool_call', 'claim', 'note', 'gate']);

  const isStr = (v) => typeof v === 'string';
  const isObj = (v) => v !== undefined && v.t === K.OBJ;
  const isArr = (v) => v !== undefined && v.t === K.ARR;
  const isHex64 = (v) => isStr(v) && HEX64.test(v);
  // A count: an integer ≥ 0 (the range is §2's; "-0" is 0).
  const isCount = (v) => v !== undefined && typeof v !== 'string' && v.t === K.NUM && (v.lit === '-0' || v.lit[0] !== '-');

  // members checks that obj has every key of required, and no key outside
  // required and optional; it returns a detail or "".
  function members(obj, path, required, optional = []) {
    if (!isObj(obj)) return (path || '/') + ': not an object';
    for (const k of required) {
      if (!obj.keys.includes(k)) return (path || '/') + ': missing ' + JSON.stringify(k);
    }
    for (const k of obj.keys) {
      if (!required.includes(k) && !optional.includes(k)) return (path || '/') + ': unknown key ' + JSON.stringify(k);
    }
    return '';
  }

  // sameKeys says whether obj is an object whose keys are keys, in order.
  function sameKeys(obj, keys) {
    if (!isObj(obj) || obj.keys.length !== keys.length) return false;
    for (let i = 0; i < keys.length; i++) if (obj.keys[i] !== keys[i]) return false;
    return true;
  }

  // checkRecord checks everything §2 and §4 say about the record apart
  // from its steps' own fields (checkStep).
  function checkRecord(rec) {
    // Numbers first, everywhere but in the steps (checkStep has them).
    if (rec.t !== K.OBJ) {
      const bad = badNumber(rec, '');
      if (bad) return bad;
    } else {
      for (let i = 0; i < rec.keys.length; i++) {
        if (rec.keys[i] === 'steps') continue;
        const bad = badNumber(rec.vals[i], '/' + token(rec.keys[i]));
        if (bad) return bad;
      }
    }
    let d = members(rec, '', ['version', 'session', 'steps', 'stepCount', 'chainTip', 'signature'], ['signerIdentity']);
    if (d) return d;
    const version = get(rec, 'version');
    if (!isStr(version) || version !== 'agent-work/record@0') return '/version: not "agent-work/record@0"';
    if ((d = checkSession(get(rec, 'session')))) return d;
    if (!isArr(get(rec, 'steps'))) return '/steps: not an array';
    if (!isCount(get(rec, 'stepCount'))) return '/stepCount: not an integer ≥ 0';
    if (!isHex64(get(rec, 'chainTip'))) return '/chainTip: not 64 lowercase hex digits';
    if ((d = checkSignature(get(rec, 'signature')))) return d;
    const id = get(rec, 'signerIdentity');
    if (id !== undefined && (d = checkIdentity(id))) return d;
    return '';
  }

  function checkSession(s) {
    let d = members(s, '/session', ['id', 'agent', 'goal', 'cwd', 'startedAt', 'endedAt'], ['recorder']);
    if (d) return d;
    for (const k of ['id', 'agent', 'goal', 'cwd', 'startedAt', 'endedAt']) {
      if (!isStr(get(s, k))) return '/session/' + k + ': not a string';
    }
    if (get(s, 'id') === '') return '/session/id: empty';
    for (const k of ['startedAt', 'endedAt']) {
      const t = get(s, k);
      if (!isInstant(t)) return '/session/' + k + ': ' + JSON.stringify(t) + ' is not a calendar instant';
    }
    const r = get(s, 'recorder');
    if (r !== undefined) {
      if ((d = members(r, '/session/recorder', ['name', 'version', 'sha256']))) return d;
      if (!isStr(get(r, 'name')) || !isStr(get(r, 'version'))) return '/session/recorder: name and version must be strings';
      if (!isHex64(get(r, 'sha256'))) return '/session/recorder/sha256: not 64 lowercase hex digits';
    }
    return '';
  }

  function checkSignature(sig) {
    const d = members(sig, '/signature', ['alg', 'envelope', 'publicKey', 'value'], ['rfc3161']);
    if (d) return d;
    const alg = get(sig, 'alg'), env = get(sig, 'envelope'), pub = get(sig, 'publicKey'), val = get(sig, 'value');
    if (!isStr(alg) || alg !== 'Ed25519') return '/signature/alg: not "Ed25519"';
    if (!isStr(env) || env !== 'logbook/record@0/v1') return '/signature/envelope: not "logbook/record@0/v1"';
    if (!isStr(pub) || !SPKI_HEX.test(pub)) return '/signature/publicKey: not the hex of an Ed25519 SubjectPublicKeyInfo';
    if (!isStr(val) || !SIG_HEX.test(val)) return '/signature/value: not 128 lowercase hex digits';
    const tok = get(sig, 'rfc3161');
    if (tok !== undefined) {
      if (!isStr(tok) || !HEX.test(tok)) return '/signature/rfc3161: not lowercase hex of whole bytes';
      if (!derSequence(lb.unhex(tok))) return '/signature/rfc3161: not a DER SEQUENCE (an RFC 3161 TimeStampToken)';
    }
    return '';
  }

  function checkIdentity(id) {
    const d = members(id, '/signerIdentity', ['certificates']);
    if (d) return d;
    const certs = get(id, 'certificates');
    if (!isArr(certs) || certs.items.length === 0) return '/signerIdentity/certificates: not a non-empty array';
    for (let i = 0; i < certs.items.length; i++) {
      const c = certs.items[i];
      if (!isStr(c) || !HEX.test(c)) return '/signerIdentity/certificates/' + i + ': not lowercase hex of whole bytes';
    }
    // Every certificate's hex is checked before any DER, as the Go verifier
    // orders it; the code is SHAPE either way.
    for (let i = 0; i < certs.items.length; i++) {
      if (!derSequence(lb.unhex(certs.items[i]))) {
        return '/signerIdentity/certificates/' + i + ': not a DER SEQUENCE (an X.509 certificate)';
      }
    }
    return '';
  }

  // derSequence: the bytes are one DER element with nothing after it, and
  // that element is a universal, constructed SEQUENCE (tag byte 0x30) with
  // a definite, minimally encoded length. What a token or certificate says
  // inside is judged only by policy checks (spec §7 step 8), never here.
  function derSequence(der) {
    if (der.length < 2 || der[0] !== 0x30) return false;
    let i = 1;
    let len = der[i++];
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0) return false; // indefinite length: BER, not DER
      len = 0;
      for (let k = 0; k < n; k++) {
        if (i >= der.length) return false;
        if (len >= 1 << 23) return false; // the Go reader's int bound, 2^31
        len = len * 256 + der[i++];
        if (len === 0) return false; // a leading zero byte
      }
      if (len < 0x80) return false; // short lengths take the short form
    }
    return i + len === der.length;
  }

  const STEP_KEYS = ['seq', 'at', 'kind', 'summary', 'data', 'inputsSha256', 'outputsSha256', 'dossier', 'prev', 'hash'];
  const STEP_KEYS_SORTED = [...STEP_KEYS].sort(); // as a canonical step has them
  const STEP_AT = Object.fromEntries(STEP_KEYS_SORTED.map((k, i) => [k, i]));

  // field returns a step's member named key (one of STEP_KEYS), or
  // undefined: looked for first where a canonical step has it (a
  // step's members are asked for some twenty times in its check).
  function field(st, key) {
    const i = STEP_AT[key];
    if (st !== undefined && typeof st !== 'string' && st.t === K.OBJ && st.keys[i] === key) return st.vals[i];
    return get(st, key);
  }

  // checkStep checks one step's fields (§4); i is its index.
  function checkStep(st, i) {
    const at = '/steps/' + i;
    const bad = badNumber(st, at);
    if (bad) return bad;
    // A canonical step's keys are exactly STEP_KEYS_SORTED: seen at once.
    const d = sameKeys(st, STEP_KEYS_SORTED) ? '' : members(st, at, STEP_KEYS);
    if (d) return d;
    if (!isCount(field(st, 'seq'))) return at + '/seq: not an integer ≥ 0';
    const t = field(st, 'at');
    if (!isStr(t) || !isInstant(t)) return at + '/at: not a calendar instant';
    const kind = field(st, 'kind');
    if (!isStr(kind) || !KINDS.has(kind)) return at + '/kind: not one of ' + [...KINDS].join(', ');
    if (!isStr(field(st, 'summary'))) return at + '/summary: not a string';
    if (!isObj(field(st, 'data'))) return at + '/data: not an object';
    for (const k of ['inputsSha256', 'outputsSha256']) {
      const list = field(st, k);
      if (!isArr(list) || !list.items.every(isHex64)) return at + '/' + k + ': not an array of 64-digit lowercase hex';
    }
    const dossier = field(st, 'dossier');
    if (isStr(dossier) || (dossier.t !== K.NUL && dossier.t !== K.OBJ)) return at + '/dossier: not null or an object';
    const prev = field(st, 'prev');
    if (!isHex64(prev) && (isStr(prev) || prev.t !== K.NUL)) return at + '/prev: not null or 64 lowercase hex digits';
    if (!isHex64(field(st, 'hash'))) return at + '/hash: not 64 lowercase hex digits';
    return '';
  }

  lb.shape = { checkRecord, checkStep, field, isInstant, derSequence, numberProblem };
})(globalThis.logbook = globalThis.logbook || {});
